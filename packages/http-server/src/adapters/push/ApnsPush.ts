import * as http2 from "node:http2"
import { type Push, PushOutcome, PushSender } from "@talab/core"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { importPKCS8, SignJWT } from "jose"
import { normalizePem, PushConfigError } from "./PushConfigError.js"
import { parseRetryAfterMs } from "./RetryAfter.js"

export interface ApnsPushOptions {
  /** Key ID of the .p8 signing key (`APNS_KEY_ID`). */
  readonly keyId: string
  /** Apple Developer Team ID (`APNS_TEAM_ID`). */
  readonly teamId: string
  /** PKCS#8 PEM content of the .p8 key (`APNS_PRIVATE_KEY`). */
  readonly privateKey: string
  /** The app's bundle ID, sent as `apns-topic` (`APNS_BUNDLE_ID`). */
  readonly bundleId: string
  /** Default `https://api.push.apple.com`; `https://api.sandbox.push.apple.com` for development builds. */
  readonly origin?: string
  /** TLS trust for the connection; only tests with a self-signed server need it. */
  readonly tls?: {
    readonly ca?: string | Buffer
    readonly rejectUnauthorized?: boolean
  }
  /** Limit for one push request. Default 10 seconds. */
  readonly timeout?: Duration.DurationInput
  /** How long one provider token is reused. Apple accepts 20 to 60 minutes; default 50 minutes. */
  readonly providerTokenTtl?: Duration.DurationInput
}

interface ProviderToken {
  readonly value: string
  readonly issuedAtMs: number
}

interface ApnsAnswer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly body: string
}

const readReason = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === "object" && parsed !== null && typeof (parsed as { reason?: unknown }).reason === "string"
      ? (parsed as { reason: string }).reason
      : undefined
  } catch {
    return undefined
  }
}

/**
 * A PushSender over the APNs HTTP/2 provider API with token (JWT ES256) authentication.
 *
 * Keeps one HTTP/2 session to the origin, reconnecting when it closes; the session is closed when the scope ends.
 * Never fails: APNs answers and network errors become `PushOutcome`s.
 * Fails at construction with `PushConfigError` when the private key cannot be read.
 */
export const make = (
  options: ApnsPushOptions
): Effect.Effect<Context.Tag.Service<PushSender>, PushConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const origin = options.origin ?? "https://api.push.apple.com"
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const providerTokenTtlMs = Duration.toMillis(options.providerTokenTtl ?? Duration.minutes(50))
    const signingKey = yield* Effect.tryPromise({
      try: () => importPKCS8(normalizePem(options.privateKey), "ES256"),
      catch: (cause) =>
        new PushConfigError({ provider: "apns", reason: `private key is not a PKCS#8 EC P-256 key: ${String(cause)}` })
    })

    const cachedToken = yield* SynchronizedRef.make(Option.none<ProviderToken>())
    // Holding the ref's lock while signing makes concurrent first sends share one token.
    const providerToken: Effect.Effect<string> = SynchronizedRef.modifyEffect(cachedToken, (current) =>
      Effect.gen(function* () {
        const nowMs = yield* Clock.currentTimeMillis
        if (Option.isSome(current) && nowMs - current.value.issuedAtMs < providerTokenTtlMs) {
          return [current.value.value, current] as const
        }
        const value = yield* Effect.promise(() =>
          new SignJWT({})
            .setProtectedHeader({ alg: "ES256", kid: options.keyId })
            .setIssuer(options.teamId)
            .setIssuedAt(Math.floor(nowMs / 1000))
            .sign(signingKey)
        )
        return [value, Option.some({ value, issuedAtMs: nowMs })] as const
      })
    )
    const dropToken = (rejected: string) =>
      SynchronizedRef.update(cachedToken, (current) =>
        Option.isSome(current) && current.value.value === rejected ? Option.none() : current
      )

    const connectOptions: http2.SecureClientSessionOptions = {
      ...(options.tls?.ca !== undefined ? { ca: options.tls.ca } : {}),
      ...(options.tls?.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.tls.rejectUnauthorized } : {})
    }
    let session: http2.ClientHttp2Session | undefined
    const connectLock = yield* Effect.makeSemaphore(1)

    const connect = Effect.async<http2.ClientHttp2Session, Error>((resume) => {
      const fresh = http2.connect(origin, connectOptions)
      const forget = () => {
        if (session === fresh) session = undefined
      }
      const onConnect = () => {
        fresh.off("error", onConnectError)
        session = fresh
        resume(Effect.succeed(fresh))
      }
      const onConnectError = (error: Error) => {
        fresh.off("connect", onConnect)
        fresh.destroy()
        resume(Effect.fail(error))
      }
      // Attached at once: an 'error' event without a listener would crash the process. Stream errors report the cause.
      fresh.on("error", forget)
      fresh.on("goaway", forget)
      fresh.on("close", forget)
      fresh.once("connect", onConnect)
      fresh.once("error", onConnectError)
      return Effect.sync(() => fresh.destroy())
    })

    const openSession = connectLock.withPermits(1)(
      Effect.suspend(() =>
        session !== undefined && !session.closed && !session.destroyed ? Effect.succeed(session) : connect
      )
    )

    const request = (
      active: http2.ClientHttp2Session,
      path: string,
      headers: http2.OutgoingHttpHeaders,
      body: string
    ) =>
      Effect.async<ApnsAnswer, Error>((resume) => {
        let settled = false
        const settle = (result: Effect.Effect<ApnsAnswer, Error>) => {
          if (settled) return
          settled = true
          resume(result)
        }
        let stream: http2.ClientHttp2Stream
        try {
          stream = active.request({ ":method": "POST", ":path": path, ...headers })
        } catch (error) {
          settle(Effect.fail(error instanceof Error ? error : new Error(String(error))))
          return
        }
        let status = 0
        let retryAfter: string | undefined
        const chunks: Array<Buffer> = []
        stream.on("response", (responseHeaders) => {
          status = Number(responseHeaders[":status"])
          const header = responseHeaders["retry-after"]
          retryAfter = Array.isArray(header) ? header[0] : header
        })
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () =>
          settle(Effect.succeed({ status, retryAfter, body: Buffer.concat(chunks).toString("utf8") }))
        )
        stream.on("error", (error) => settle(Effect.fail(error)))
        stream.on("close", () => settle(Effect.fail(new Error(`stream closed with code ${stream.rstCode}`))))
        stream.end(body)
        return Effect.sync(() => {
          if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL)
        })
      })

    const payloadOf = (push: Push) =>
      JSON.stringify({
        ...push.data,
        type: push.type,
        aps: { alert: { title: push.title, body: push.body }, sound: "default" }
      })

    const send = (push: Push): Effect.Effect<PushOutcome> =>
      Effect.gen(function* () {
        const token = yield* providerToken
        const answer = yield* openSession.pipe(
          Effect.flatMap((active) =>
            request(
              active,
              `/3/device/${encodeURIComponent(push.pushToken)}`,
              {
                authorization: `bearer ${token}`,
                "apns-topic": options.bundleId,
                "apns-push-type": "alert",
                "apns-priority": "10",
                "content-type": "application/json"
              },
              payloadOf(push)
            )
          ),
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new Error(`APNs did not answer within ${Duration.format(timeout)}`)
          }),
          Effect.either
        )
        if (answer._tag === "Left") {
          return PushOutcome.Retryable({ reason: `APNs unreachable: ${answer.left.message}` })
        }
        const { status, body } = answer.right
        if (status === 200) return PushOutcome.Delivered()

        const apnsReason = readReason(body)
        const reason = `APNs answered HTTP ${status}${apnsReason !== undefined ? ` ${apnsReason}` : ""}`
        if (status === 410 || (status === 400 && apnsReason === "BadDeviceToken")) return PushOutcome.Unregistered()
        if (status === 403 && apnsReason === "ExpiredProviderToken") {
          yield* dropToken(token)
          return PushOutcome.Retryable({ reason })
        }
        if (status === 429 || status >= 500) {
          const retryAfterMs = parseRetryAfterMs(answer.right.retryAfter, yield* Clock.currentTimeMillis)
          return PushOutcome.Retryable(retryAfterMs === undefined ? { reason } : { reason, retryAfterMs })
        }
        return PushOutcome.Failed({ reason })
      }).pipe(
        Effect.tap((outcome) =>
          outcome._tag === "Delivered"
            ? Effect.void
            : Effect.logWarning("APNs push not delivered").pipe(
                Effect.annotateLogs({ outcome: outcome._tag, reason: "reason" in outcome ? outcome.reason : "" })
              )
        )
      )

    // Taking the connect lock keeps a connect that is under way from leaving a session open after shutdown.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const open = session
        session = undefined
        if (open === undefined || open.closed) return Effect.void
        return Effect.async<void>((resume) => {
          open.close(() => resume(Effect.void))
        }).pipe(
          // A stream that never ends must not hold up shutdown.
          Effect.timeout(Duration.seconds(5)),
          Effect.catchAll(() => Effect.sync(() => open.destroy()))
        )
      }).pipe(connectLock.withPermits(1))
    )

    return PushSender.of({ send })
  })

/** Layer of {@link make}; the HTTP/2 session lives as long as the layer. */
export const layer = (options: ApnsPushOptions): Layer.Layer<PushSender, PushConfigError> =>
  Layer.scoped(PushSender, make(options))
