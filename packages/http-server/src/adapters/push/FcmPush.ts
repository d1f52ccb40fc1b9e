import { type Push, PushOutcome, PushSender } from "@talab/core"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { importPKCS8, SignJWT } from "jose"
import { normalizePem, PushConfigError } from "./PushConfigError.js"
import { parseRetryAfterMs } from "./RetryAfter.js"

/** The fields of a Google service-account key file that the OAuth2 JWT-bearer flow needs. */
export interface FcmServiceAccount {
  readonly client_email: string
  readonly private_key: string
  /** Default `https://oauth2.googleapis.com/token`. */
  readonly token_uri?: string
}

export interface FcmPushOptions {
  readonly projectId: string
  readonly serviceAccount: FcmServiceAccount
  /** Default `https://fcm.googleapis.com`; tests point it at a local fake. */
  readonly baseUrl?: string
  /** Limit for one HTTP call (token exchange or send). Default 10 seconds. */
  readonly timeout?: Duration.DurationInput
}

const ServiceAccountJson = Schema.parseJson(
  Schema.Struct({
    client_email: Schema.String,
    private_key: Schema.String,
    token_uri: Schema.optionalWith(Schema.String, { exact: true })
  })
)

/** Reads the service-account key file content (as found in `FCM_SERVICE_ACCOUNT_JSON`). */
export const parseServiceAccountJson = (json: string): Effect.Effect<FcmServiceAccount, PushConfigError> =>
  Schema.decodeUnknown(ServiceAccountJson)(json).pipe(
    Effect.mapError(
      () =>
        new PushConfigError({
          provider: "fcm",
          reason: "service account JSON must be an object with client_email and private_key"
        })
    )
  )

const messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
const defaultTokenUri = "https://oauth2.googleapis.com/token"
/** Refresh this long before Google's expiry so a token never expires between the check and FCM's check. */
const tokenRefreshMarginMs = 60_000

interface AccessToken {
  readonly value: string
  readonly expiresAtMs: number
}

interface HttpAnswer {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: unknown
}

/** FCM v1 error body: a google.rpc.Status with FcmError details. */
interface FcmErrorBody {
  readonly error?: {
    readonly message?: string
    readonly status?: string
    readonly details?: ReadonlyArray<{ readonly errorCode?: string }>
  }
}

const isTransientStatus = (status: number) => status === 429 || status >= 500

/**
 * A PushSender over FCM HTTP v1 (`POST /v1/projects/{projectId}/messages:send`).
 *
 * Access tokens come from the service account through the OAuth2 JWT-bearer grant and are cached until shortly
 * before they expire. Never fails: provider answers and network errors become `PushOutcome`s.
 * Fails at construction with `PushConfigError` when the private key cannot be read.
 */
export const make = (options: FcmPushOptions): Effect.Effect<Context.Tag.Service<PushSender>, PushConfigError> =>
  Effect.gen(function* () {
    const account = options.serviceAccount
    const tokenUri = account.token_uri ?? defaultTokenUri
    const sendUrl = `${(options.baseUrl ?? "https://fcm.googleapis.com").replace(/\/+$/, "")}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const signingKey = yield* Effect.tryPromise({
      try: () => importPKCS8(normalizePem(account.private_key), "RS256"),
      catch: (cause) =>
        new PushConfigError({ provider: "fcm", reason: `private_key is not a PKCS#8 RSA key: ${String(cause)}` })
    })
    const cachedToken = yield* SynchronizedRef.make(Option.none<AccessToken>())

    const call = (url: string, init: RequestInit): Effect.Effect<HttpAnswer, PushOutcome> =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await fetch(url, { ...init, signal })
          const text = await response.text()
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            body = text
          }
          return { status: response.status, retryAfter: response.headers.get("retry-after"), body }
        },
        catch: (cause) => PushOutcome.Retryable({ reason: `FCM unreachable: ${String(cause)}` })
      }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => PushOutcome.Retryable({ reason: `FCM did not answer within ${Duration.format(timeout)}` })
        })
      )

    const exchangeToken: Effect.Effect<AccessToken, PushOutcome> = Effect.gen(function* () {
      const nowMs = yield* Clock.currentTimeMillis
      const issuedAt = Math.floor(nowMs / 1000)
      const assertion = yield* Effect.promise(() =>
        new SignJWT({ scope: messagingScope })
          .setProtectedHeader({ alg: "RS256", typ: "JWT" })
          .setIssuer(account.client_email)
          .setAudience(tokenUri)
          .setIssuedAt(issuedAt)
          .setExpirationTime(issuedAt + 3600)
          .sign(signingKey)
      )
      const answer = yield* call(tokenUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion })
      })
      const body = answer.body as { access_token?: unknown; expires_in?: unknown; error?: unknown }
      if (answer.status === 200 && typeof body.access_token === "string") {
        const expiresInSeconds = typeof body.expires_in === "number" ? body.expires_in : 3600
        return { value: body.access_token, expiresAtMs: nowMs + expiresInSeconds * 1000 }
      }
      const reason = `OAuth2 token exchange answered HTTP ${answer.status}: ${JSON.stringify(answer.body)}`
      return yield* Effect.fail(
        isTransientStatus(answer.status)
          ? PushOutcome.Retryable(withRetryAfter(reason, parseRetryAfterMs(answer.retryAfter, nowMs)))
          : PushOutcome.Failed({ reason })
      )
    })

    // Holding the ref's lock during the exchange makes concurrent sends share one token request.
    const accessToken: Effect.Effect<string, PushOutcome> = SynchronizedRef.modifyEffect(cachedToken, (current) =>
      Effect.gen(function* () {
        const nowMs = yield* Clock.currentTimeMillis
        if (Option.isSome(current) && current.value.expiresAtMs - tokenRefreshMarginMs > nowMs) {
          return [current.value.value, current] as const
        }
        const fresh = yield* exchangeToken
        return [fresh.value, Option.some(fresh)] as const
      })
    )

    const dropToken = (rejected: string) =>
      SynchronizedRef.update(cachedToken, (current) =>
        Option.isSome(current) && current.value.value === rejected ? Option.none() : current
      )

    const messageOf = (push: Push) => ({
      message: {
        token: push.pushToken,
        notification: { title: push.title, body: push.body },
        data: { ...push.data, type: push.type }
      }
    })

    const send = (push: Push): Effect.Effect<PushOutcome, PushOutcome> =>
      Effect.gen(function* () {
        const token = yield* accessToken
        const answer = yield* call(sendUrl, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json; charset=utf-8" },
          body: JSON.stringify(messageOf(push))
        })
        if (answer.status === 200) return PushOutcome.Delivered()

        const error = (answer.body as FcmErrorBody | undefined)?.error
        const errorCode = error?.details?.find((detail) => detail.errorCode !== undefined)?.errorCode
        const reason = `FCM answered HTTP ${answer.status} ${errorCode ?? error?.status ?? ""}: ${error?.message ?? JSON.stringify(answer.body)}`
        if (answer.status === 404 && (error?.status === "NOT_FOUND" || errorCode === "UNREGISTERED")) {
          return PushOutcome.Unregistered()
        }
        if (isTransientStatus(answer.status)) {
          const nowMs = yield* Clock.currentTimeMillis
          return PushOutcome.Retryable(withRetryAfter(reason, parseRetryAfterMs(answer.retryAfter, nowMs)))
        }
        if (answer.status === 401 || answer.status === 403) yield* dropToken(token)
        return PushOutcome.Failed({ reason })
      })

    return PushSender.of({
      send: (push) =>
        send(push).pipe(
          Effect.merge,
          Effect.tap((outcome) =>
            outcome._tag === "Delivered"
              ? Effect.void
              : Effect.logWarning("FCM push not delivered").pipe(
                  Effect.annotateLogs({ outcome: outcome._tag, reason: "reason" in outcome ? outcome.reason : "" })
                )
          )
        )
    })
  })

const withRetryAfter = (reason: string, retryAfterMs: number | undefined) =>
  retryAfterMs === undefined ? { reason } : { reason, retryAfterMs }

/** Layer of {@link make}. */
export const layer = (options: FcmPushOptions): Layer.Layer<PushSender, PushConfigError> =>
  Layer.effect(PushSender, make(options))
