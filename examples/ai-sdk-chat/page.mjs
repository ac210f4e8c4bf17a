// The example's page, plain HTML without a script: the sidebar of the user's chats (newest first, with titles),
// the open chat, and beside each message with versions a "< i / n >" picker. Its forms post to the server, which
// runs the AI SDK's flows (`sendMessage`, `sendMessage({ text, messageId })`, `regenerate({ messageId })`) or
// `switchBranch`, then shows the page again.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe inside HTML and attribute values: chat text is the users' own input. */
function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

function hidden(name, value) {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/** What a message part shows: its text, or a line saying which tool it called and how that went. */
function partText(part) {
  if (part.type === "text") return escapeHtml(part.text);
  if (part.type.startsWith("tool-"))
    return `<em>[${escapeHtml(part.type.slice(5))}: ${escapeHtml(part.state)}]</em>`;
  return "";
}

/** The "< i / n >" picker of a message with versions: each arrow posts the neighbouring version's index. */
function picker(action, chatId, message) {
  const versions = message.metadata?.skein;
  if (!versions) return "";
  const arrow = (label, to) =>
    `<button name="to" value="${to}"${to < 0 || to >= versions.count ? " disabled" : ""}>${label}</button>`;
  return `<form class="versions" method="post" action="${action("/switch")}">${hidden("chat", chatId)}${hidden("message", message.id)}${arrow("&lt;", versions.index - 1)} <span>${versions.index + 1} / ${versions.count}</span> ${arrow("&gt;", versions.index + 1)}</form>`;
}

function messageHtml(action, chatId, message) {
  const text = message.parts.map(partText).join("");
  const plain = message.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
  const change =
    message.role === "user"
      ? `<form method="post" action="${action("/edit")}">${hidden("chat", chatId)}${hidden("message", message.id)}<input name="text" value="${escapeHtml(plain)}"><button>Edit</button></form>`
      : `<form method="post" action="${action("/regenerate")}">${hidden("chat", chatId)}${hidden("message", message.id)}<button>Regenerate</button></form>`;
  return `<article data-id="${escapeHtml(message.id)}" class="${message.role}"><b>${message.role}</b> ${picker(action, chatId, message)}<p>${text}</p>${change}</article>`;
}

/**
 * The page of `user`: `chats` and `cursor` are `listChats`'s page, `chatId` and `messages` the open chat
 * (`loadChat`).
 * @example renderPage({ user: "u-7", chats, cursor, chatId: "c-1", messages: await loadChat(thread) })
 */
export function renderPage({ user, chats, cursor, chatId, messages }) {
  const action = (path) => `${path}?user=${encodeURIComponent(user)}`;
  const link = (id) => `/?user=${encodeURIComponent(user)}&amp;chat=${encodeURIComponent(id)}`;
  const sidebar = chats
    .map(
      (chat) =>
        `<li${chat.id === chatId ? ' class="open"' : ""}><a href="${link(chat.id)}">${escapeHtml(chat.title ?? chat.id)}</a> <time>${escapeHtml(chat.updatedAt)}</time></li>`,
    )
    .join("");
  // The next page of the sidebar, from where this one ended (`listChats`'s cursor).
  const more = cursor
    ? `<p><a href="${action("/")}&amp;from=${encodeURIComponent(cursor)}">Older chats</a></p>`
    : "";
  const chat = chatId
    ? messages.map((message) => messageHtml(action, chatId, message)).join("")
    : "<p>Start a chat below.</p>";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>skein chat</title>
<style>body{display:flex;font-family:sans-serif;margin:0}nav{width:16rem;padding:1rem;background:#f4f4f4}main{flex:1;padding:1rem}article{border-bottom:1px solid #ddd;padding:.5rem 0}.versions{display:inline}li.open a{font-weight:bold}</style>
</head><body>
<nav><h2>Chats of ${escapeHtml(user)}</h2><ul id="chats">${sidebar}</ul>${more}<a href="${action("/")}">New chat</a></nav>
<main id="chat">${chat}
<form method="post" action="${action("/send")}">${chatId ? hidden("chat", chatId) : ""}<input name="text" placeholder="Message"><button>Send</button></form>
</main></body></html>
`;
}
