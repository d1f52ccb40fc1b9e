import { OpenApi } from "@effect/platform"
import { Api } from "../Api.js"

/*
 * The framework documents its own decode failure as the 400 body, but the server rewrites those into
 * the envelope; the document must say what is really sent, so every 400 points at the envelope.
 */
const withEnvelopeFor400 = (spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const envelope = { $ref: "#/components/schemas/ValidationErrorResponse" }
  for (const pathItem of Object.values(spec.paths)) {
    for (const operation of Object.values(pathItem as Record<string, any>)) {
      const response = operation?.responses?.["400"]
      if (response?.content?.["application/json"]) response.content["application/json"].schema = envelope
    }
  }
  const schemas = spec.components.schemas as Record<string, unknown>
  delete schemas.HttpApiDecodeError
  delete schemas.Issue
  delete schemas.PropertyKey
  return spec
}

let cached: OpenApi.OpenAPISpec | undefined

/** The OpenAPI 3.1 document of every REST endpoint, as served at /api/v1/openapi.json. */
export const openApiDocument = (): OpenApi.OpenAPISpec => {
  cached ??= withEnvelopeFor400(OpenApi.fromApi(Api))
  return cached
}
