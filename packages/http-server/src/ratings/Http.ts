import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import * as Effect from "effect/Effect"
import { respond } from "../http/Localize.js"
import { RatingsService } from "./Service.js"

export const RatingsHttp = HttpApiBuilder.group(Api, "ratings", (handlers) =>
  Effect.gen(function* () {
    const service = yield* RatingsService
    return handlers.handle("rate", ({ payload }) =>
      respond(
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          const rating = yield* service.rate(user, {
            dealId: payload.deal_id,
            rating: payload.rating,
            reviewText: payload.review_text ?? null
          })
          return { success: true as const, data: rating }
        })
      )
    )
  })
)
