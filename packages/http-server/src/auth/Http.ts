import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/AppConfig.js"
import { clientIp, clientNetwork } from "../http/ClientAddress.js"
import { requestLanguage, respond } from "../http/Localize.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { networkPrefixOf } from "./NetworkPrefix.js"
import { SessionQueries } from "./Queries.js"
import { AuthService } from "./Service.js"

const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const auth = yield* AuthService
    const queries = yield* SessionQueries
    const { trustProxy } = yield* AppConfig
    return handlers
      .handle("requestOtp", ({ payload, request }) =>
        respond(
          Effect.gen(function* () {
            const language = yield* requestLanguage
            const { expiresAt, limits } = yield* auth.requestOtp(payload, language, clientNetwork(request, trustProxy))
            yield* Effect.forEach(limits, recordRateLimit, { discard: true })
            return { expires_at: expiresAt, message: translate("otp_sent", language) }
          })
        )
      )
      .handle("verifyOtp", ({ payload, request }) =>
        respond(auth.verifyOtp(payload, networkPrefixOf(clientIp(request, trustProxy))))
      )
      .handle("refresh", ({ payload }) => respond(auth.refresh(payload)))
      .handle("logout", ({ payload }) =>
        Effect.gen(function* () {
          const { user, sessionId } = yield* CurrentUser
          // No body at all is a sign-out with no device token, as an empty one is.
          yield* auth.logout(user.id, sessionId, payload ?? {})
          return translate("logged_out", yield* requestLanguage)
        })
      )
      .handle("listSessions", () =>
        Effect.gen(function* () {
          const { user, sessionId } = yield* CurrentUser
          const sessions = yield* queries.live(user.id)
          return { sessions: sessions.map((session) => ({ ...session, current: session.id === sessionId })) }
        })
      )
      .handle("endSession", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* auth.endSession(user.id, path.id)
            return translate("session_ended", yield* requestLanguage)
          })
        )
      )
      .handle("endOtherSessions", () =>
        Effect.gen(function* () {
          const { user, sessionId } = yield* CurrentUser
          const ended = yield* auth.endOtherSessions(user.id, sessionId)
          const message = translate("other_sessions_ended", yield* requestLanguage)
          return { data: { ended }, message }
        })
      )
  })
)

/** Sign-in and sessions: the REST handlers with their own services. */
export const AuthLive = AuthHttp.pipe(Layer.provide([AuthService.Default, SessionQueries.Default]))
