import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as Schema from "effect/Schema"
import {
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { FreeText, IntParam, PageParams, Pagination, Payload, SEQ_MAX, SeqField } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { MESSAGE_TEXT_MAX } from "../realtime/Protocol.js"
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
  .add(
    HttpApiEndpoint.get("listMine", "/conversations/my")
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(Ok(Schema.Struct({ conversations: Schema.Array(ConversationSummary), pagination: Pagination })))
  )
  .add(
    HttpApiEndpoint.get("listMessages", "/conversations/:id/messages")
      .setPath(IdPath)
      .setUrlParams(HistoryParams)
      .addSuccess(Ok(Schema.Struct({ messages: Schema.Array(MessageItem), has_more: Schema.Boolean })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.post("sendMessage", "/conversations/:id/messages")
      .setPath(IdPath)
      .setPayload(Payload({ message_text: FreeText(1, MESSAGE_TEXT_MAX) }))
      .addSuccess(Ok(SentMessage), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.put("markRead", "/conversations/:id/read")
      .setPath(IdPath)
      .setPayload(Payload({ up_to_seq: SeqField }))
      .addSuccess(Ok(Schema.Struct({ ...SentMessage.pick("conversationId").fields, ...UnreadCount.fields })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
