import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentUser } from "../http/CurrentUser.js"
import { requestLanguage, respond } from "../http/Localize.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { userView } from "../http/Views.js"
import { translate } from "../i18n/messages.js"
import { AuthService } from "./Service.js"

export const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const auth = yield* AuthService
    return handlers
      .handle("requestOtp", ({ payload, request }) =>
        respond(
          Effect.gen(function* () {
            const language = yield* requestLanguage
            const { expiresAt, phoneLimit } = yield* auth.requestOtp(payload.phone_number, language)
            recordRateLimit(request, phoneLimit)
            return { success: true as const, data: { expires_at: expiresAt, message: translate("otp_sent", language) } }
          })
        )
      )
      .handle("verifyOtp", ({ payload }) =>
        respond(
          Effect.map(auth.verifyOtp(payload.phone_number, payload.otp_code), ({ user, tokens, hasSellerProfile }) => ({
            success: true as const,
            data: { user: { ...userView(user), has_seller_profile: hasSellerProfile }, tokens }
          }))
        )
      )
      .handle("refresh", ({ payload }) =>
        respond(Effect.map(auth.refresh(payload.refresh_token), (data) => ({ success: true as const, data })))
      )
      .handle("logout", ({ payload }) =>
        Effect.gen(function* () {
          const { user, sessionId } = yield* CurrentUser
          yield* auth.logout(user.id, sessionId, payload?.device_token)
          return { success: true as const, data: {}, message: translate("logged_out", yield* requestLanguage) }
        })
      )
  })
)
