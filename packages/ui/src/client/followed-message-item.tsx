import { MessageItem, type MessageItemProps } from "./message-item.js";
import type { ThreadRef } from "./thread-ref.js";
import { useFollowedMessage } from "./use-follow.js";

/** A message that streams, drawn as it grows and then as it ended (see `useFollowedMessage`). */
export function FollowedMessageItem({ thread, message, ...rest }: MessageItemProps & { thread: ThreadRef }) {
  return <MessageItem {...rest} message={useFollowedMessage(thread, message)} />;
}
