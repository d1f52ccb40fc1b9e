/*
 * The chat of one offer: each message with its sender, its time and, for your own, whether the other party has
 * read it. History comes over REST, then the socket carries every new message once, yours included (the SDK's
 * ordered log: no gap, no duplicate). What the other party wrote is marked read while the tab is visible. Read
 * marks have no socket event, so your messages' read state is read again every few seconds while the tab is
 * visible.
 */
import { type ChatMessage, isRealtimeError } from "@talab/client-sdk"
import { $, h } from "../dom.js"
import { clearError, clearFieldErrors, report, showFieldErrors } from "../errors.js"
import { dateTime, t, type WordKey } from "../i18n.js"
import { gallery, uploadPicked } from "../photos.js"
import { realtime, talab } from "../talab.js"
import { sellerName } from "./offers.js"

/** A message as the screen shows it: over REST it carries `read_at`; live frames do not. */
type Shown = ChatMessage & { readonly read_at?: string | null }

/** How often your messages' read state is read again, while the tab is visible. */
const READ_STATE_EVERY_MS = 5_000

/** Shows a conversation until the screen is left; returns what to do when it is. */
export const showChat = async (conversationId: string, myUserId: string) => {
  const list = $("messages")
  const form = $<HTMLFormElement>("message-form")
  let markedUpTo = 0
  list.replaceChildren()
  $("chat-title").textContent = ""

  const conversation = await findConversation(conversationId)
  const otherName = sellerName(conversation.other_party)
  $("chat-title").textContent = t("chatWith", { name: otherName })

  const item = (message: Shown) => {
    const mine = message.sender_id === myUserId
    const readAt = list.querySelector<HTMLElement>(`[data-message-id="${message.id}"]`)?.dataset.readAt
    const read = message.read_at ?? readAt ?? null
    return h(
      "li",
      {
        "data-message-id": message.id,
        "data-seq": String(message.seq),
        "data-kind": message.kind,
        class: mine ? "mine" : "theirs",
        ...(read === null ? {} : { "data-read-at": read })
      },
      // <bdi>: a Latin name in an Arabic line (or the reverse) keeps its own direction and does not run into the time.
      h("bdi", { class: "sender" }, mine ? t("you") : otherName),
      " · ",
      h("time", { datetime: message.created_at }, dateTime(message.created_at)),
      h(
        "p",
        { class: "text" },
        message.kind === "text" ? null : h("em", {}, `${t(`message_${message.kind}` satisfies WordKey)}: `),
        message.message_text
      ),
      gallery(message.attachments, t("messagePhotos")),
      message.masked && h("p", { class: "hint" }, t("masked")),
      mine && h("span", { class: "read-state", "data-read": String(read !== null) }, t(read === null ? "sent" : "read"))
    )
  }

  /** Adds a message in seq order, or redraws it in place (a newer read state). */
  const put = (message: Shown) => {
    const drawn = item(message)
    const existing = list.querySelector(`[data-message-id="${message.id}"]`)
    if (existing !== null) return existing.replaceWith(drawn)
    const later = [...list.children].find((li) => Number((li as HTMLElement).dataset.seq) > message.seq)
    list.insertBefore(drawn, later ?? null)
  }

  /** Tells the server the user has read what the other party wrote, up to the newest shown. */
  const markRead = async () => {
    const theirs = [...list.querySelectorAll<HTMLElement>("li.theirs")].map((li) => Number(li.dataset.seq))
    const newest = Math.max(0, ...theirs)
    if (document.hidden || newest <= markedUpTo) return
    markedUpTo = newest
    await talab.PUT("/conversations/{id}/read", {
      params: { path: { id: conversationId } },
      body: { up_to_seq: newest }
    })
  }

  /** The newest page of history, oldest first on screen; also brings your messages' read marks up to date. */
  const readHistory = async () => {
    const { data } = await talab.GET("/conversations/{id}/messages", { params: { path: { id: conversationId } } })
    for (const message of [...data.messages].reverse()) put(message)
    return data.messages[0]
  }

  const newest = await readHistory()
  const live = realtime()
  const stopListening = live.on("message", (message) => {
    if (message.conversation_id !== conversationId) return
    put(message)
    markRead().catch((error: unknown) => void report(error))
  })
  // Not awaited: the screen works from its history while the socket (re)connects; the SDK subscribes once open.
  live.subscribe(conversationId, newest ? { after: newest } : {}).catch((error: unknown) => void report(error))
  await markRead()

  const refresh = () => {
    if (document.hidden) return
    readHistory()
      .then(markRead)
      .catch((error: unknown) => void report(error))
  }
  const timer = setInterval(refresh, READ_STATE_EVERY_MS)
  document.addEventListener("visibilitychange", refresh)

  const send = async (event: Event) => {
    event.preventDefault()
    clearFieldErrors(form)
    clearError()
    const input = $<HTMLInputElement>("message")
    const picked = $<HTMLInputElement>("attachments")
    // Nothing to send: said here, in the user's words, rather than as the server's refusal of an empty text.
    // Photos alone are a message: their text is "".
    if (input.value.trim() === "" && (picked.files?.length ?? 0) === 0) {
      showFieldErrors(form, { message_text: [t("emptyMessage")] })
      return
    }
    try {
      const attachmentIds = await uploadPicked(picked)
      await live.send(conversationId, input.value.trim() === "" ? "" : input.value, { attachmentIds })
      input.value = ""
      picked.value = ""
    } catch (error) {
      // The server's refusal of this text names the field in `details`, as over REST; the rest goes to the error line.
      if (isRealtimeError(error, "VALIDATION_ERROR") && error.details) showFieldErrors(form, error.details)
      else await report(error)
    }
  }
  form.addEventListener("submit", send)

  return () => {
    stopListening()
    clearInterval(timer)
    document.removeEventListener("visibilitychange", refresh)
    form.removeEventListener("submit", send)
    void live.unsubscribe(conversationId)
  }
}

const findConversation = async (conversationId: string) => {
  for await (const conversation of talab.items("/conversations/my", { params: { query: { per_page: 50 } } })) {
    if (conversation.id === conversationId) return conversation
  }
  throw new Error(`No conversation ${conversationId}`)
}
