export { ITEM_KEY, itemToMessage, messageToItems } from "./item-messages.js";
export { SessionHistoryError, SessionItemError } from "./session-errors.js";
export { createSkeinSession, SkeinSession, type SkeinSessionOptions } from "./skein-session.js";
export { decodeValue, encodeValue } from "./stored-values.js";
