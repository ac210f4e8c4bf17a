export { ChatMismatchError, MessageMappingError } from "./errors.js";
export { fromModelMessages } from "./from-model-messages.js";
export { fromUIMessages } from "./from-ui-messages.js";
export { type ToModelMessagesOptions, toModelMessages } from "./to-model-messages.js";
export { toUIMessages } from "./to-ui-messages.js";
