import type { IncomingMessage } from "node:http"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { NodeHttpServerRequest } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** The deepest nesting of arrays and objects a JSON body may have (the body object itself is level 1). */
export const MAX_JSON_DEPTH = 64

/**
 * Tracks the nesting of a JSON text fed to it in pieces, as bytes (brackets, quotes and backslashes never
 * occur inside a multi-byte UTF-8 sequence), and says as soon as a level is too deep: the body's reader
 * stops there, so a megabyte of `[` costs 65 bytes of work and no buffering. String contents are jumped
 * over with `indexOf` (native).
 */
export class NestingScanner {
  private depth = 0
  private inString = false
  /** Whether the piece before ended, inside a string, on an odd run of backslashes (escaping what follows). */
  private escapePending = false

  constructor(private readonly max: number) {}

  /** Feeds the next piece; true once the nesting has gone deeper than `max`. */
  feed(bytes: Uint8Array): boolean {
    let i = 0
    while (i < bytes.length) {
      if (this.inString) {
        i = this.afterString(bytes, i)
        continue
      }
      const c = bytes[i++]
      if (c === 0x22) this.inString = true
      else if (c === 0x5b || c === 0x7b) {
        if (++this.depth > this.max) return true
      } else if (c === 0x5d || c === 0x7d) this.depth--
    }
    return false
  }

  /** Where scanning goes on after the string content starting at `from`: past its closing quote, or the end. */
  private afterString(bytes: Uint8Array, from: number): number {
    for (let quote = bytes.indexOf(0x22, from); quote !== -1; quote = bytes.indexOf(0x22, quote + 1)) {
      if (!this.escapedAt(bytes, quote)) {
        this.inString = false
        this.escapePending = false
        return quote + 1
      }
    }
    this.escapePending = this.escapedAt(bytes, bytes.length)
    return bytes.length
  }

  /** Whether the byte at `index` follows an odd run of backslashes (counting the piece before). */
  private escapedAt(bytes: Uint8Array, index: number): boolean {
    let run = 0
    while (index - 1 - run >= 0 && bytes[index - 1 - run] === 0x5c) run++
    const carried = index - run === 0 && this.escapePending ? 1 : 0
    return (run + carried) % 2 === 1
  }
}

/** Whether a JSON text nests arrays and objects deeper than `max` (the body object itself is level 1). */
export const nestsDeeperThan = (text: string, max: number): boolean =>
  new NestingScanner(max).feed(Buffer.from(text, "utf8"))

/** Why a body could not be read as JSON. */
export type JsonBodyProblem = "too_large" | "too_deep" | "malformed"

export class JsonBodyError extends Error {
  constructor(readonly problem: JsonBodyProblem) {
    super(`JSON body: ${problem}`)
  }
}

/**
 * Reads a JSON body as it arrives, as bytes: over `maxBytes` fails at once (the rest is drained before the
 * refusal is sent), nested too deep fails at once and the rest is discarded unread (up to `maxBytes`),
 * otherwise the text is decoded once from one buffer. A client that goes away fails it as malformed.
 */
const readJsonText = (incoming: IncomingMessage, maxBytes: number) =>
  Effect.async<string, JsonBodyError>((resume) => {
    if (incoming.readableEnded || incoming.destroyed) {
      return resume(incoming.destroyed ? Effect.fail(new JsonBodyError("malformed")) : Effect.succeed(""))
    }
    const scanner = new NestingScanner(MAX_JSON_DEPTH)
    const chunks: Array<Buffer> = []
    let bytes = 0
    let settled = false
    const settle = (result: Effect.Effect<string, JsonBodyError>) => {
      settled = true
      incoming.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose)
      resume(result)
    }
    const discardRest = () => {
      let discarded = bytes
      incoming.on("data", (chunk: Buffer) => {
        discarded += chunk.length
        if (discarded > maxBytes) incoming.destroy()
      })
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      // What is left is read and dropped, bounded, before the 413 goes out (`UnreadBody.ts`).
      if (bytes > maxBytes) settle(Effect.fail(new JsonBodyError("too_large")))
      else if (scanner.feed(chunk)) {
        settle(Effect.fail(new JsonBodyError("too_deep")))
        discardRest()
      } else chunks.push(chunk)
    }
    const onEnd = () => settle(Effect.succeed(Buffer.concat(chunks, bytes).toString("utf8")))
    const onClose = () => settle(Effect.fail(new JsonBodyError("malformed")))
    incoming.on("data", onData).once("end", onEnd).once("close", onClose).once("error", onClose)
    return Effect.sync(() => {
      if (!settled) incoming.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose)
    })
  })

const parseBody = (request: HttpServerRequest.HttpServerRequest, text: Effect.Effect<string, JsonBodyError>) =>
  Effect.flatMap(text, (text) => {
    if (text === "") return Effect.succeed(null)
    try {
      return Effect.succeed(JSON.parse(text) as unknown)
    } catch {
      return Effect.fail(new JsonBodyError("malformed"))
    }
  }).pipe(Effect.mapError((cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })))

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/

const mediaTypeOf = (header: string) => (header.split(";")[0] ?? "").trim().toLowerCase()

/** `application/json` or a `+json` type (RFC 6839), with any parameters; anything else, malformed included, is not. */
export const isJsonContentType = (header: string) => {
  const type = mediaTypeOf(header)
  return (
    MEDIA_TYPE.test(type) &&
    (type === "application/json" || (type.startsWith("application/") && type.endsWith("+json")))
  )
}

/**
 * Makes `request.json` (and `request.text`) read and parse a JSON body once, as it arrives, whoever asks
 * first (the body check, then the framework's payload decoding), with the size and nesting limits applied
 * while reading; a `+json` body is presented to the framework as `application/json`. The request object
 * itself is kept (not wrapped), since rate-limit decisions and the user's language are remembered by its
 * identity. Other content types keep the platform's readers.
 */
export const installLimitedJsonReader = (request: HttpServerRequest.HttpServerRequest) => {
  const contentType = request.headers["content-type"]
  if (contentType === undefined || !isJsonContentType(contentType)) return
  if (mediaTypeOf(contentType) !== "application/json") {
    // The framework reads only `application/json` as JSON (a `+json` body would be read again as bytes).
    const headers = { ...request.headers, "content-type": "application/json" }
    Object.defineProperty(request, "headers", { value: headers, configurable: true })
  }
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const text = Effect.runSync(
    Effect.cached(
      Effect.flatMap(HttpIncomingMessage.MaxBodySize, (limit) =>
        readJsonText(incoming, Option.match(limit, { onNone: () => Infinity, onSome: Number }))
      )
    )
  )
  const json = Effect.runSync(Effect.cached(parseBody(request, text)))
  const textOrError = Effect.mapError(
    text,
    (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  )
  Object.defineProperty(request, "text", { value: textOrError, configurable: true })
  Object.defineProperty(request, "json", { value: json, configurable: true })
}

/** The problem of a failed `request.json`. */
export const jsonBodyProblem = (error: HttpServerError.RequestError): JsonBodyProblem =>
  error.cause instanceof JsonBodyError ? error.cause.problem : "malformed"
