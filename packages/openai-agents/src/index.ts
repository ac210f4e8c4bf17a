export { itemToMessage, messageToItems } from "./item-messages.js";
export { SessionHistoryError, SessionItemError } from "./session-errors.js";
export { createSkeinSession, SkeinSession, type SkeinSessionOptions } from "./skein-session.js";
