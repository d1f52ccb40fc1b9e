import {
  ClientFrame,
  type ClientFrameType,
  CONVERSATION_CHANNEL_PREFIX,
  clientFrameTypes,
  type ErrorFrameCode,
  errorMessages,
  type Problem,
  problemsOf,
  ServerFrame,
  translate
} from "@talab/contract"
import type { Language } from "@talab/core"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** What an incoming text frame turned out to be. */
export type DecodedFrame =
  | { readonly _tag: "Frame"; readonly frame: ClientFrame }
  | { readonly _tag: "NotJson" }
  | { readonly _tag: "UnknownType" }
  /** A known type whose fields broke the schema; `fields` maps each field to its catalogue problems. */
  | {
      readonly _tag: "Invalid"
      readonly type: ClientFrameType
      readonly fields: Readonly<Record<string, ReadonlyArray<Problem>>>
      readonly clientId: string | undefined
    }

const decodeFrame = Schema.decodeUnknownEither(ClientFrame, { errors: "all" })
const isKnownType = (type: unknown): type is ClientFrameType =>
  typeof type === "string" && (clientFrameTypes as ReadonlyArray<string>).includes(type)

const fieldProblems = (error: ParseResult.ParseError) => {
  const fields: Record<string, Array<Problem>> = {}
  for (const { path, ...problem } of problemsOf(error.issue)) {
    // The union reports every member's mismatch on `type`; the right member's field problems are what matter.
    if (path[0] === "type") continue
    const field = path.map(String).join(".") || "frame"
    fields[field] = [...(fields[field] ?? []), problem]
  }
  // An optional field's failure also reports its `undefined` branch as `invalid`: named problems say it, as over REST.
  for (const [field, problems] of Object.entries(fields)) {
    const named = problems.filter((problem) => problem.key !== "invalid")
    if (named.length > 0) fields[field] = named
  }
  return fields
}

/** Parses and decodes one text frame with the protocol's schemas. */
export const decodeClientFrame = (text: string): DecodedFrame => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { _tag: "NotJson" }
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { _tag: "NotJson" }
  const type = (json as { type?: unknown }).type
  if (!isKnownType(type)) return { _tag: "UnknownType" }
  return Either.match(decodeFrame(json), {
    onRight: (frame) => ({ _tag: "Frame", frame }),
    onLeft: (error) => {
      const clientId = (json as { client_id?: unknown }).client_id
      return {
        _tag: "Invalid",
        type,
        fields: fieldProblems(error),
        clientId: typeof clientId === "string" ? clientId : undefined
      }
    }
  })
}

const encodeFrame = Schema.encodeSync(ServerFrame)

/** The JSON text of a server frame. */
export const encodeServerFrame = (frame: ServerFrame): string => JSON.stringify(encodeFrame(frame))

/** An error frame in a language, with optional correlation fields. */
export const errorFrame = (
  code: ErrorFrameCode,
  language: Language,
  extra: {
    readonly fields?: Readonly<Record<string, ReadonlyArray<Problem>>>
    readonly clientId?: string | undefined
    readonly channel?: string | undefined
  } = {}
): ServerFrame => ({
  type: "error",
  code,
  message: errorMessages[code][language],
  ...(extra.fields
    ? {
        details: Object.fromEntries(
          Object.entries(extra.fields).map(([field, problems]) => [
            field,
            problems.map((problem) => translate(problem.key, language, problem.params))
          ])
        )
      }
    : {}),
  ...(extra.clientId !== undefined ? { client_id: extra.clientId } : {}),
  ...(extra.channel !== undefined ? { channel: extra.channel } : {})
})

/** Whether a conversation id of a frame is a UUID: any other id names no conversation (NOT_FOUND, like an unknown one). */
export const isConversationId = Schema.is(Schema.UUID)

/** What a `subscribe` or `unsubscribe` frame's channel names. */
export type ChannelTarget =
  | { readonly _tag: "Conversation"; readonly conversationId: string }
  /** `conversation.<id>` whose id is not a UUID: a conversation that does not exist. */
  | { readonly _tag: "UnknownConversation" }
  /** Not a `conversation.<id>` channel at all: a malformed frame. */
  | { readonly _tag: "NotAConversation" }

/** Decodes a channel: the conversation of `conversation.<UUID>`, before anything below the gateway sees the id. */
export const conversationOfChannel = (channel: string): ChannelTarget => {
  if (!channel.startsWith(CONVERSATION_CHANNEL_PREFIX) || channel.length === CONVERSATION_CHANNEL_PREFIX.length) {
    return { _tag: "NotAConversation" }
  }
  const conversationId = channel.slice(CONVERSATION_CHANNEL_PREFIX.length)
  return isConversationId(conversationId) ? { _tag: "Conversation", conversationId } : { _tag: "UnknownConversation" }
}

/**
 * The seq of an encoded `message` frame (as the hub and the fan-out carry it), or +Infinity when it has none,
 * so a frame that cannot be placed is never taken for one already sent.
 */
export const seqOfMessageFrame = (text: string): number => {
  try {
    const seq = (JSON.parse(text) as { data?: { seq?: unknown } }).data?.seq
    return typeof seq === "number" ? seq : Number.POSITIVE_INFINITY
  } catch {
    return Number.POSITIVE_INFINITY
  }
}
