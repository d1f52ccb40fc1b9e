import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { causeIsUnreachable, RETRY_AFTER_SECONDS } from "../db/Availability.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/*
 * A call that needs the database while it cannot be reached is answered 503 SERVICE_UNAVAILABLE with
 * Retry-After, not 500: nothing is wrong with the call, and it will work again by itself. It must run inside
 * the app (a global middleware), where the failure is still a failure: further out it is already a 500.
 */
export const DependencyOutageLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) =>
    causeIsUnreachable(cause) && !Cause.isInterrupted(cause)
      ? Effect.gen(function* () {
          yield* Effect.logWarning("dependency unavailable").pipe(
            Effect.annotateLogs("error", Cause.pretty(cause).split("\n")[0] ?? "")
          )
          return HttpServerResponse.setHeader(
            yield* errorEnvelopeResponse("SERVICE_UNAVAILABLE", 503),
            "retry-after",
            String(RETRY_AFTER_SECONDS)
          )
        })
      : Effect.failCause(cause)
  )
)
