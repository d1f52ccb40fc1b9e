import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { MessageInput } from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { IntParam, PageParams, Pagination, Payload, PayloadOf, SEQ_MAX, SeqField } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { withContent } from "./Content.js"
import { ConversationSummary, MessageItem, SentMessage, UnreadCount } from "./Views.js"

/** The most messages one page of GET /conversations/{id}/messages may ask for (`limit`); more is a 400. */
export const MESSAGES_LIMIT_MAX = 100
/** How many messages a page of GET /conversations/{id}/messages has when `limit` is not given. */
export const MESSAGES_LIMIT_DEFAULT = 50

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** An ISO 8601 date-time with its offset (`2025-01-31T10:00:00.000Z`), as a query parameter. */
export const TimestampParam = Schema.transform(
  Schema.String.pipe(
    Schema.filter((s) => ISO_TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s)), fieldProblem("timestamp"))
  ),
  Schema.DateFromSelf,
  { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() }
)

/** `before` pages back in time, `after_seq` forward: one page goes one way, so naming both is a 400. */
const HistoryParams = Schema.Struct({
  before: Schema.optional(TimestampParam),
  after_seq: Schema.optional(IntParam(0, SEQ_MAX)),
  limit: Schema.optional(IntParam(1, MESSAGES_LIMIT_MAX))
}).pipe(
  Schema.filter(
    (params, _, self) =>
      params.before === undefined || params.after_seq === undefined || failureAt("after_seq", params, self),
    fieldProblem("after_seq_with_before")
  )
)

/** The caller's conversations and their messages (parties only). */
export class ChatApi extends HttpApiGroup.make("chat")
  .annotate(OpenApi.Title, "Chat")
  .annotate(
    OpenApi.Description,
    "Every offer opens a conversation between the buyer and the seller. Messages can be read and sent here or live over the WebSocket at `/ws` (see `/api/v1/asyncapi.json`)."
  )
  .add(
    HttpApiEndpoint.get("listMine", "/conversations/my")
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(Ok(Schema.Struct({ conversations: Schema.Array(ConversationSummary), pagination: Pagination })))
      .annotate(OpenApi.Summary, "List my conversations")
      .annotate(
        OpenApi.Description,
        "The signed-in user's conversations (one per offer), by last activity, with the last message (its text, contact details masked as in the history, `masked`, `seq` and time) and the unread count."
      )
  )
  .add(
    HttpApiEndpoint.get("listMessages", "/conversations/:id/messages")
      .setPath(IdPath)
      .setUrlParams(HistoryParams)
      .addSuccess(Ok(Schema.Struct({ messages: Schema.Array(MessageItem), has_more: Schema.Boolean })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Read a conversation's messages")
      .annotate(
        OpenApi.Description,
        "The conversation's two parties. Up to `limit` messages older than `before` (default: now), newest first, with `has_more` (older ones exist). With `after_seq=N` instead: up to `limit` messages whose `seq` is greater than N, oldest first, with `has_more` (newer ones exist: ask again with the last `seq` returned); this is how a client resumes a conversation. `before` and `after_seq` together are a 400. Every message carries `seq`: 1, 2, 3, … within the conversation, with no gaps. Marks the other party's messages as read. Until the offer is accepted, phone numbers, e-mail addresses, links and handles in the other party's messages read `***` (`masked: true`), however they are disguised (look-alike digits, invisible characters, spelled-out digits, `at`/`dot`) and also when a number is split over several of their messages; your own never do."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no conversation has this id",
        FORBIDDEN: "the caller is not a party of the conversation"
      })
  )
  .add(
    HttpApiEndpoint.post("sendMessage", "/conversations/:id/messages")
      .setPath(IdPath)
      // The client id is the socket's way to make a send idempotent; over REST the Idempotency-Key header is.
      .setPayload(withContent(PayloadOf(MessageInput.pick("messageText", "attachmentIds"))))
      .addSuccess(Ok(SentMessage), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Send a message")
      .annotate(
        OpenApi.Description,
        'The conversation\'s two parties. Stores the message and delivers it to every WebSocket subscribed to the conversation; a recipient who is not subscribed gets a `message` push (for a message with photos and no text: "📷 Photo"). `attachment_ids` (0 to 4) are the sender\'s own unattached images (`POST /images`), shown under `attachments` to the two parties only; with at least one, `message_text` may be empty or left out and is stored as "". A seller whose profile is suspended or rejected may write only in the conversation of an accepted offer (the deal\'s); elsewhere 403 `SELLER_NOT_APPROVED`, nothing stored.'
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no conversation has this id",
        FORBIDDEN: "the caller is not a party of the conversation",
        VALIDATION_ERROR:
          "on `message_text`: neither text nor attachment, or a text too long; on `attachment_ids`: over 4, repeated, or an id that is not one of the caller's own unattached images (nothing stored)",
        SELLER_NOT_APPROVED:
          "the caller is the conversation's seller, their profile is suspended or rejected, and the offer is not accepted"
      })
      .annotate(RequestExample, { message_text: "Is it still available?" })
  )
  .add(
    HttpApiEndpoint.put("markRead", "/conversations/:id/read")
      .setPath(IdPath)
      .setPayload(Payload({ up_to_seq: SeqField }))
      .addSuccess(Ok(Schema.Struct({ ...SentMessage.pick("conversationId").fields, ...UnreadCount.fields })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Mark messages as read up to a seq")
      .annotate(
        OpenApi.Description,
        "The conversation's two parties. Marks the other party's messages with `seq` up to `up_to_seq` as read (those read already keep their `read_at`; the caller's own messages are never touched) and answers how many of the other party's messages the caller still has unread, the `unread_count` every device sees in the conversation list. A `seq` not stored yet marks what there is; 0 marks nothing."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no conversation has this id",
        FORBIDDEN: "the caller is not a party of the conversation"
      })
      .annotate(RequestExample, { up_to_seq: 12 })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
