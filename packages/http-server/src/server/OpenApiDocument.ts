import { OpenApi } from "@effect/platform"
import { Api } from "../Api.js"

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

let cached: OpenApi.OpenAPISpec | undefined

/** The OpenAPI 3.1 document of every REST endpoint, as served at /api/v1/openapi.json: what the server really sends. */
export const openApiDocument = (): OpenApi.OpenAPISpec => {
  if (cached === undefined) {
    const spec = OpenApi.fromApi(Api)
    for (const rewrite of [envelopeFor400, optionalBodies, singleFileParts, dateTimes]) rewrite(spec)
    cached = spec
  }
  return cached
}
