export { createSkeinSession, type SkeinSessionOptions } from "./create-session.js";
export { itemToMessage, messageToItems } from "./item-messages.js";
export { SessionHistoryError, SessionItemError, SessionOptionsError } from "./session-errors.js";
export { SkeinSession } from "./skein-session.js";
