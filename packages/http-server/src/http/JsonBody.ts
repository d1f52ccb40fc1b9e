import { HttpServerError, type HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/** The deepest nesting of arrays and objects a JSON body may have (the body object itself is level 1). */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text nests arrays and objects deeper than `max`. One pass that jumps over each string's
 * content with `indexOf` (native), stopping at the first level too deep: a megabyte of `[` costs
 * microseconds instead of a parse, and a megabyte inside one string about as much as reading it.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = closingQuote(text, i + 1)
      if (i === -1) return false
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** The index of the quote that closes a string whose content starts at `from` (-1 if none). */
const closingQuote = (text: string, from: number) => {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  return -1
}

/** Why a body could not be read as JSON. */
export type JsonBodyProblem = "too_large" | "too_deep" | "malformed"

export class JsonBodyError extends Error {
  constructor(readonly problem: JsonBodyProblem) {
    super(`JSON body: ${problem}`)
  }
}

const isSizeLimit = (error: HttpServerError.RequestError) => String(error.cause ?? "").includes("maxBytes")

const parseBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(Effect.either(request.text), (text) => {
    const fail = (problem: JsonBodyProblem) =>
      Effect.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause: new JsonBodyError(problem) }))
    if (text._tag === "Left") return fail(isSizeLimit(text.left) ? "too_large" : "malformed")
    if (text.right === "") return Effect.succeed(null)
    if (nestsDeeperThan(text.right, MAX_JSON_DEPTH)) return fail("too_deep")
    try {
      return Effect.succeed(JSON.parse(text.right) as unknown)
    } catch {
      return fail("malformed")
    }
  })

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
 * Makes `request.json` parse the body once, whoever asks first (the body check, then the framework's
 * payload decoding), with the nesting limit applied before parsing; a `+json` body is presented to the
 * framework as `application/json`. The request object itself is kept
 * (not wrapped), since rate-limit decisions and the user's language are remembered by its identity.
 */
export const parseJsonOnce = (request: HttpServerRequest.HttpServerRequest) => {
  const contentType = request.headers["content-type"]
  if (contentType !== undefined && isJsonContentType(contentType) && mediaTypeOf(contentType) !== "application/json") {
    // The framework reads only `application/json` as JSON (a `+json` body would be read again as bytes).
    const headers = { ...request.headers, "content-type": "application/json" }
    Object.defineProperty(request, "headers", { value: headers, configurable: true })
  }
  const parsed = Effect.runSync(Effect.cached(parseBody(request)))
  Object.defineProperty(request, "json", { value: parsed, configurable: true })
}

/** The problem of a failed `request.json`. */
export const jsonBodyProblem = (error: HttpServerError.RequestError): JsonBodyProblem =>
  error.cause instanceof JsonBodyError ? error.cause.problem : isSizeLimit(error) ? "too_large" : "malformed"
