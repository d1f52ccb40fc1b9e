import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { RETRY_AFTER_SECONDS } from "../db/Availability.js"
import { describeSchemaState, SchemaStatus } from "../db/SchemaStatus.js"
import { isAdminConsolePath, pathOf } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/**
 * What answers without the database's tables: the probes (readiness says why itself), the API's reference and the
 * admin console's static files (whose calls then meet this gate themselves).
 */
const needsNoSchema = (path: string) =>
  path.startsWith("/health/") || path === "/openapi.json" || path === "/docs" || isAdminConsolePath(path)

/*
 * While the database's schema is behind the server's migrations (MIGRATE_ON_START=false before `talab migrate`),
 * every call that needs it is answered 503 SERVICE_UNAVAILABLE with Retry-After: the call is fine and will work
 * once the schema is migrated, with no restart; without this gate it would fail on a missing table, a 500.
 */
export const SchemaGateLive = HttpApiBuilder.middleware(
  Effect.map(
    SchemaStatus,
    (schema) => (app) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (needsNoSchema(pathOf(request.url))) return yield* app
        const state = yield* schema.state
        if (state._tag === "Current") return yield* app
        yield* Effect.logWarning("schema not current").pipe(Effect.annotateLogs("reason", describeSchemaState(state)))
        return HttpServerResponse.setHeader(
          yield* errorEnvelopeResponse("SERVICE_UNAVAILABLE", 503),
          "retry-after",
          String(RETRY_AFTER_SECONDS)
        )
      })
  )
)
