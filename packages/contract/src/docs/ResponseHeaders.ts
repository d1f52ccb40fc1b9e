import type * as OpenApi from "@effect/platform/OpenApi"

/*
 * What every answer of the API carries beside its body, declared where it is sent so a client (or a validator)
 * reads nothing undocumented: the request id, the rate-limit headers of a counted call, `Retry-After` on a refusal
 * that will pass by itself, the caching headers and the 304 of a conditional GET.
 */

type Json = Record<string, any>

const AUTH_PREFIX = "/api/v1/auth/"

const integer = { type: "integer", minimum: 0 }

const headers = {
  RequestId: {
    description: "The id of this call, as the server's log and traces name it (the client's own when it sent one).",
    required: true,
    schema: { type: "string", minLength: 1 }
  },
  RateLimitLimit: {
    description:
      "The calls the tightest limit this call was counted against allows in its window. Sent on every counted call.",
    schema: integer
  },
  RateLimitRemaining: { description: "The calls left in that window.", schema: integer },
  RateLimitReset: { description: "Seconds until that window frees up.", schema: integer },
  RetryAfter: {
    description:
      "Seconds to wait before trying again: the limit frees up, the service is back, or the call holding the `Idempotency-Key` ends.",
    required: true,
    schema: { type: "integer", minimum: 1 }
  },
  ETag: {
    description: "A strong tag of the body's bytes: send it back in `If-None-Match` to get 304 while it is current.",
    schema: { type: "string", pattern: '^"[A-Za-z0-9_-]+"$' }
  },
  ContentDisposition: {
    description: "`attachment`, with the file name a browser saves the document under.",
    required: true,
    schema: { type: "string", pattern: "^attachment" }
  },
  CacheControl: {
    description:
      "`private, no-cache` on a GET's answer (the client may keep it and must revalidate), `no-store` under `/auth/`.",
    schema: { type: "string" }
  }
} as const

const ref = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` })

/** Headers one operation's success sends beside the common ones: `"<method> <path>"` → its 200's headers. */
const OWN_HEADERS: Readonly<Record<string, Readonly<Record<string, Json>>>> = {
  "get /api/v1/users/me/export": { "Content-Disposition": ref("ContentDisposition") }
}

const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "The `ETag` of a body the client holds: while it is still the current one, the answer is 304.",
  schema: { type: "string" }
}

const NOT_MODIFIED = {
  description: "Not Modified: the body is still the one whose `ETag` the client sent in `If-None-Match`; no body.",
  headers: {
    "X-Request-Id": ref("RequestId"),
    ETag: ref("ETag"),
    "Cache-Control": ref("CacheControl"),
    "RateLimit-Limit": ref("RateLimitLimit"),
    "RateLimit-Remaining": ref("RateLimitRemaining"),
    "RateLimit-Reset": ref("RateLimitReset")
  }
}

/** Every answer's headers, and each GET's conditional form. */
export const responseHeaders = (spec: OpenApi.OpenAPISpec) => {
  const components = spec.components as Json
  components.headers = { ...components.headers, ...headers }
  for (const [path, pathItem] of Object.entries(spec.paths) as Array<[string, Json]>) {
    for (const [method, operation] of Object.entries<Json>(pathItem)) {
      if (typeof operation !== "object" || operation === null || !("responses" in operation)) continue
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        response.headers = {
          "X-Request-Id": ref("RequestId"),
          "RateLimit-Limit": ref("RateLimitLimit"),
          "RateLimit-Remaining": ref("RateLimitRemaining"),
          "RateLimit-Reset": ref("RateLimitReset"),
          "Cache-Control": ref("CacheControl"),
          ...(["409", "429", "503"].includes(status) ? { "Retry-After": ref("RetryAfter") } : {}),
          ...response.headers
        }
      }
      const own = OWN_HEADERS[`${method} ${path}`]
      if (own !== undefined && operation.responses["200"] !== undefined) {
        operation.responses["200"].headers = { ...operation.responses["200"].headers, ...own }
      }
      if (method !== "get" || path.startsWith(AUTH_PREFIX)) continue
      const ok = operation.responses["200"]
      if (ok === undefined) continue
      ok.headers = { ...ok.headers, ETag: ref("ETag") }
      operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH]
      operation.responses = Object.fromEntries(
        Object.entries<Json>(operation.responses).flatMap(([status, response]) =>
          status === "200"
            ? [
                [status, response],
                ["304", NOT_MODIFIED]
              ]
            : [[status, response]]
        )
      )
    }
  }
}

/**
 * A request body's fields the operation does not name are ignored, not refused (decisions.md section 2): the
 * document says so instead of `additionalProperties: false`, which would make a client's validator refuse what
 * the server takes.
 */
export const ignoredRequestFields = (spec: OpenApi.OpenAPISpec) => {
  for (const pathItem of Object.values(spec.paths) as Array<Json>) {
    for (const operation of Object.values<Json>(pathItem)) {
      const schema: Json | undefined = operation?.requestBody?.content?.["application/json"]?.schema
      if (schema === undefined || schema.additionalProperties !== false) continue
      delete schema.additionalProperties
      schema.description = [schema.description, "Fields not named here are ignored."].filter(Boolean).join(" ")
    }
  }
}
