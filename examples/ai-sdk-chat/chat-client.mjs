// The client side of the example: the AI SDK's own chat (`AbstractChat`, what `useChat` and `new Chat()` of
// @ai-sdk/react, vue and svelte wrap) on a transport that sends only the newest message. Its `sendMessage`,
// `sendMessage({ text, messageId })` (an edit) and `regenerate()` are the SDK's flows, unchanged; the route
// turns them into skein versions. The page's forms and the tests both drive a chat through it.
import { AbstractChat, DefaultChatTransport } from "ai";

/** The chat's state, kept in plain fields: what a UI framework's reactive state does, without the framework. */
class PlainChatState {
  status = "ready";
  error = undefined;

  constructor(messages) {
    this.messages = messages;
  }

  pushMessage(message) {
    this.messages = [...this.messages, message];
  }

  popMessage() {
    this.messages = this.messages.slice(0, -1);
  }

  replaceMessage(index, message) {
    this.messages = this.messages.with(index, message);
  }

  snapshot(value) {
    return structuredClone(value);
  }
}

/**
 * An AI SDK chat with the example's route: `api` is the route's URL, `user` the signed-in user, `messages` the
 * chat as `loadChat` gives it. `fetch` replaces the global one (the page's forms call the route in process).
 * @extends {AbstractChat<import("ai").UIMessage>}
 */
export class ExampleChat extends AbstractChat {
  /**
   * @param {{ id: string, api: string, user: string, messages?: import("ai").UIMessage[], fetch?: typeof fetch }} options
   */
  constructor({ id, api, user, messages = [], fetch }) {
    const url = new URL(api);
    url.searchParams.set("user", user);
    super({
      id,
      state: new PlainChatState(messages),
      transport: new DefaultChatTransport({
        api: url.href,
        ...(fetch ? { fetch } : {}),
        // The route holds the chat: it needs only the newest message (after an edit, the edited one).
        prepareSendMessagesRequest: ({ id: chatId, messages: all }) => ({
          body: { id: chatId, message: all.at(-1) },
        }),
      }),
    });
  }

  /**
   * Runs one of the SDK's flows and fails as it did: the SDK keeps a request's error on the chat.
   * @param {(chat: ExampleChat) => Promise<void>} flow
   * @returns {Promise<import("ai").UIMessage[]>}
   */
  async run(flow) {
    await flow(this);
    if (this.error) throw this.error;
    return this.messages;
  }
}
