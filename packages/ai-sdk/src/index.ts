export { loadChat, type SaveChatOptions, type SaveChatResult, saveChat, switchBranch } from "./chat.js";
export type { ChatVersions, SwitchBranchOptions } from "./chat-branches.js";
export { ChatArgumentError, ChatMismatchError, MessageMappingError } from "./errors.js";
export { fromModelMessages } from "./from-model-messages.js";
export { fromUIMessages } from "./from-ui-messages.js";
export { type ChatPage, type ChatSummary, type ListChatsOptions, listChats } from "./list-chats.js";
export { type PersistChatOptions, type PersistChatStreamOptions, persistChat } from "./persist-chat.js";
export { type ToModelMessagesOptions, toModelMessages } from "./to-model-messages.js";
export { toUIMessages } from "./to-ui-messages.js";
