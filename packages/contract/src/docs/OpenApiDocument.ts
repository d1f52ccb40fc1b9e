import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from "@talab/core"
import * as Context from "effect/Context"
import { Api } from "../Api.js"
import { type ErrorCode, errorCatalogue, isErrorCode, statusOfCode, whenAnswered } from "../errors/Catalogue.js"
import { ErrorCases, RequestExample } from "./Annotations.js"
import { exampleOf } from "./Examples.js"
import { ignoredRequestFields, responseHeaders } from "./ResponseHeaders.js"

type Json = Record<string, any>

const operationsOf = (spec: OpenApi.OpenAPISpec): Array<Json> =>
  Object.values(spec.paths).flatMap((pathItem) => Object.values(pathItem as Json).filter((op) => op?.responses))

/*
 * The framework documents its own decode failure as the 400 body, but the server rewrites those into
 * the envelope; the document must say what is really sent, so every 400 points at the envelope.
 */
const envelopeFor400 = (spec: OpenApi.OpenAPISpec) => {
  const envelope = { $ref: "#/components/schemas/ValidationErrorResponse" }
  for (const operation of operationsOf(spec)) {
    const response = operation.responses["400"]
    if (response?.content?.["application/json"]) response.content["application/json"].schema = envelope
  }
  const schemas = spec.components.schemas as Json
  delete schemas.HttpApiDecodeError
  delete schemas.Issue
  delete schemas.PropertyKey
}

/** A payload that may be absent (all fields optional) is an optional body of that object, not "object or null". */
const optionalBodies = (spec: OpenApi.OpenAPISpec) => {
  for (const operation of operationsOf(spec)) {
    const content = operation.requestBody?.content?.["application/json"]
    const branches: Array<Json> | undefined = content?.schema?.anyOf
    if (branches?.length !== 2 || !branches.some((branch) => branch.type === "null")) continue
    content.schema = branches.find((branch) => branch.type !== "null")
    operation.requestBody.required = false
  }
}

/** A multipart file field is one file (the framework describes it as an array of exactly one). */
const singleFileParts = (spec: OpenApi.OpenAPISpec) => {
  for (const operation of operationsOf(spec)) {
    const properties: Json | undefined = operation.requestBody?.content?.["multipart/form-data"]?.schema?.properties
    for (const [name, property] of Object.entries(properties ?? {})) {
      if (property.type === "array" && property.maxItems === 1) properties![name] = { type: "string", format: "binary" }
    }
  }
}

/** Timestamps are ISO 8601 strings. */
const dateTimes = (spec: OpenApi.OpenAPISpec) => {
  const date = (spec.components.schemas as Json).Date
  if (date) Object.assign(date, { format: "date-time", description: "ISO 8601 timestamp (UTC)" })
}

/** The server, license and contact, and the introduction every reader starts from. */
const about = (spec: OpenApi.OpenAPISpec) => {
  const document = spec as Json
  document.info = {
    ...document.info,
    description: introduction,
    license: { name: "MIT", identifier: "MIT" },
    contact: { name: "Talab API team", url: "https://talab.example/developers", email: "api@talab.example" }
  }
  document.servers = [{ url: "/", description: "The server this document is served from" }]
}

/** A token lifetime in the prose's words: days from two days on, else hours, else minutes. */
const durationOf = (seconds: number) => {
  const [count, unit] =
    seconds >= 2 * 86_400 && seconds % 86_400 === 0
      ? [seconds / 86_400, "days"]
      : seconds % 3600 === 0
        ? [seconds / 3600, "hours"]
        : [seconds / 60, "minutes"]
  return `${count} ${unit}`
}

const introduction = `Buy-request marketplace API: buyers post what they want to buy, approved sellers answer with offers,
the buyer accepts one and the two complete the deal, chatting on the way.

**Envelope.** Every response is JSON: \`{"success": true, "data": …, "message"?: …}\` or
\`{"success": false, "error": {"code", "message", "details"}}\`. \`error.code\` is stable (switch on it);
\`error.message\` and the \`details\` messages (field → messages, for 400) are in the response language.

**Sign-in.** \`POST /auth/request-otp\` sends a code by SMS, \`POST /auth/verify-otp\` answers an access token
(valid \`expires_in\` = ${ACCESS_TOKEN_TTL_SECONDS} seconds, ${durationOf(ACCESS_TOKEN_TTL_SECONDS)}) and a refresh token (${durationOf(REFRESH_TOKEN_TTL_SECONDS)}). Send \`Authorization: Bearer <access token>\`; after a 401
\`UNAUTHORIZED\`, get a new one from \`POST /auth/refresh\`.

**Language.** \`Accept-Language: ar\` (the default) or \`en\`.

**Limits.** Per IP on \`/auth/*\`, per user elsewhere. A 429 \`RATE_LIMITED\` carries \`Retry-After\`; counted
responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`. JSON bodies are at most 1 MiB.

**Retries.** Every POST takes an \`Idempotency-Key\` (1 to 255 printable ASCII characters, e.g. a UUID): its answer is
kept 24 hours and a retry with the same key and body gets it again with \`Idempotent-Replayed: true\`, nothing done
twice. The SDK sends one on every POST and keeps it across its own retries.

**Lists** are newest first, \`page\` (from 1) and \`per_page\` (1 to 50, default 20), with \`pagination\`.

**Realtime.** Chat messages arrive live over the WebSocket at \`/ws\` (same port, JSON frames): the protocol and
its frames are in the AsyncAPI document at [/api/v1/asyncapi.json](/api/v1/asyncapi.json). Push notifications
(FCM, APNs) carry \`type\` and the ids in \`data\`; they are described there too.

**SDK.** \`@talab/client-sdk\` is typed from this document, with retries, the session and the realtime client.`

const codesOfSchema = (schema: Json | undefined, root: Json): ReadonlyArray<string> => {
  if (schema?.anyOf) return schema.anyOf.flatMap((branch: Json) => codesOfSchema(branch, root))
  const resolved = schema?.$ref
    ? root.components.schemas[String(schema.$ref).replace("#/components/schemas/", "")]
    : schema
  return resolved?.properties?.error?.properties?.code?.enum ?? []
}

const errorCodesOf = (response: Json, root: Json): ReadonlyArray<string> =>
  codesOfSchema(response.content?.["application/json"]?.schema, root)

/** Codes every operation that can answer them lists, whatever its docs name. */
const IDEMPOTENCY_CODES: ReadonlyArray<string> = ["IDEMPOTENCY_KEY_IN_USE", "IDEMPOTENCY_KEY_REUSED"]

/** What an endpoint's annotations say beyond its summary and description, by operation id. */
interface OperationNotes {
  readonly errorCases: Context.Tag.Service<ErrorCases>
  readonly requestExample: Context.Tag.Service<RequestExample>
}

const notesOfOperations = (api: AnyApi): ReadonlyMap<string, OperationNotes> => {
  const notes = new Map<string, OperationNotes>()
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, group }) {
      notes.set(`${group.identifier}.${endpoint.name}`, {
        errorCases: Context.getOrElse(endpoint.annotations, ErrorCases, () => ({})),
        requestExample: Context.getOrElse(endpoint.annotations, RequestExample, () => ({}))
      })
    }
  })
  return notes
}

/** The codes of one error response this operation answers: the ones its docs name, else the status's first. */
const codesAnswered = (notes: OperationNotes, status: string, response: Json, root: Json) => {
  const possible = errorCodesOf(response, root)
  const named = Object.keys(notes.errorCases).filter(
    (code) => possible.includes(code) && isErrorCode(code) && String(statusOfCode[code]) === status
  )
  const idempotency = IDEMPOTENCY_CODES.filter((code) => possible.includes(code))
  const others = possible.filter((code) => !IDEMPOTENCY_CODES.includes(code))
  return [...(named.length > 0 ? named : others.slice(0, 1)), ...idempotency]
}

const errorExample = (code: string, when: string) => ({
  summary: when.charAt(0).toUpperCase() + when.slice(1),
  value: {
    success: false,
    error: {
      code,
      message: isErrorCode(code) ? errorCatalogue[code].en : code,
      details: code === "VALIDATION_ERROR" ? { price: ["Must be greater than zero"] } : {}
    }
  }
})

/**
 * Each operation's summary, its rules and a table of the codes it answers and when, an example of its request
 * and of every response; fails loudly when an endpoint has no summary or description, so none ships bare.
 */
const describedOperations = (api: AnyApi) => (spec: OpenApi.OpenAPISpec) => {
  const root = spec as Json
  const notesOf = notesOfOperations(api)
  for (const operation of operationsOf(spec)) {
    const id: string = operation.operationId
    const { summary, description } = operation
    if (summary === undefined || description === undefined) {
      throw new Error(`Operation ${id} has no OpenApi.Summary or OpenApi.Description annotation on its endpoint`)
    }
    const notes = notesOf.get(id) ?? { errorCases: {}, requestExample: {} }
    const rows: Array<string> = []
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      if (Number(status) < 400) {
        const media = response.content?.["application/json"]
        if (media?.schema) media.example = exampleOf(media.schema, root)
        continue
      }
      const codes = codesAnswered(notes, status, response, root)
      const whenOf = (code: string) =>
        notes.errorCases[code as ErrorCode] ??
        (isErrorCode(code) ? whenAnswered(code) : undefined) ??
        response.description
      for (const code of codes) rows.push(`| ${status} | \`${code}\` | ${whenOf(code)} |`)
      const media = response.content?.["application/json"]
      if (media !== undefined) {
        media.examples = Object.fromEntries(codes.map((code) => [code, errorExample(code, whenOf(code))]))
      }
    }
    const json = operation.requestBody?.content?.["application/json"]
    if (json?.schema) json.example = { ...(exampleOf(json.schema, root) as Json), ...notes.requestExample }
    // Written last, after the request body, as the published document has always ordered them.
    delete operation.summary
    delete operation.description
    operation.summary = summary
    operation.description = [description, "", "| Status | Code | When |", "|---|---|---|", ...rows].join("\n")
  }
}

/** A component nothing refers to any more (the framework's file part, replaced by a plain binary string). */
const unusedComponents = (spec: OpenApi.OpenAPISpec) => {
  const schemas = spec.components.schemas as Json
  const text = JSON.stringify({ ...spec, components: { ...spec.components, schemas: {} } })
  for (const name of Object.keys(schemas)) {
    const referencedElsewhere = Object.entries(schemas).some(
      ([other, schema]) => other !== name && JSON.stringify(schema).includes(`"#/components/schemas/${name}"`)
    )
    if (!text.includes(`"#/components/schemas/${name}"`) && !referencedElsewhere) delete schemas[name]
  }
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the call safe to retry: its answer is kept 24 hours for this key (per user; per client IP on `/auth/*`) and sent again, with `Idempotent-Replayed: true`, to a retry with the same method, path and body. The same key with another request answers 422 `IDEMPOTENCY_KEY_REUSED`; while the first call runs, 409 `IDEMPOTENCY_KEY_IN_USE`. Answers 400, 401, 413, 415, 429 and 5xx are not kept.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[ -~]+$" },
  example: "5f0c8a1e-7d4b-4c1e-9a59-2f3b0c6d8e41"
}

const REPLAYED_HEADER = {
  description: "`true` when the answer is the stored one of an earlier call with the same `Idempotency-Key`.",
  schema: { type: "string", enum: ["true"] }
}

/** Every POST takes an `Idempotency-Key` and its kept answers can come back as replays. */
const idempotencyKeys = (spec: OpenApi.OpenAPISpec) => {
  for (const pathItem of Object.values(spec.paths) as Array<Json>) {
    const operation = pathItem.post
    if (operation === undefined) continue
    operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER]
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      if (Number(status) < 500 && ![400, 401, 409, 413, 415, 429].includes(Number(status))) {
        response.headers = { ...response.headers, "Idempotent-Replayed": REPLAYED_HEADER }
      }
    }
  }
}

type AnyApi = HttpApi.HttpApi<string, HttpApiGroup.HttpApiGroup.Any, any, any>

/**
 * The document of `api` as the server serves it, with the reference's prose and examples; throws when an
 * endpoint has no summary or description. It rewrites the framework's document of `api`, which the framework
 * keeps, so each API is documented once.
 */
export const openApiDocumentOf = (api: AnyApi): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(api)
  for (const rewrite of [
    envelopeFor400,
    optionalBodies,
    singleFileParts,
    dateTimes,
    idempotencyKeys,
    responseHeaders,
    ignoredRequestFields,
    unusedComponents,
    about,
    describedOperations(api)
  ]) {
    rewrite(spec)
  }
  return spec
}

let cached: OpenApi.OpenAPISpec | undefined

/**
 * The OpenAPI 3.1 document of every REST endpoint, as served at /api/v1/openapi.json and shown at /docs: what
 * the server really sends, with the reference's prose and examples. Its server is relative (`/`): the document
 * names whichever origin serves it.
 */
export const openApiDocument = (): OpenApi.OpenAPISpec => {
  cached ??= openApiDocumentOf(Api)
  return cached
}
