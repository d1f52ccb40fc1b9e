import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import { Ratings } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"

const RatingsHttp = HttpApiBuilder.group(Api, "ratings", (handlers) =>
  Effect.gen(function* () {
    const service = yield* Ratings
    return handlers.handle("rate", ({ payload }) =>
      respond(
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          return yield* service.rate(user, payload)
        })
      )
    )
  })
)

/** Ratings: the REST handlers with their own services. */
export const RatingsLive = RatingsHttp.pipe(Layer.provide(Ratings.Default))
