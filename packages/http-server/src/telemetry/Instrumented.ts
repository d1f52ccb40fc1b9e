import { type PushOutcome, PushSender, RateLimiter, SmsSender } from "@talab/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig, type AppSettings } from "../config/AppConfig.js"
import { recordPushFailure, recordRateLimitRefusal } from "./Metrics.js"

/*
 * The ports whose calls are counted or traced, wrapped once here instead of at every call site. Each wrapper
 * is installed only when its telemetry is on; otherwise the adapter itself is passed through.
 */

/** The limit a key counts against, from its prefix (`api:<user>`, `auth-ip:<ip>`, …): a bounded label. */
const LIMIT_OF_PREFIX: Readonly<Record<string, string>> = {
  "auth-ip": "auth",
  otp: "otp",
  api: "api",
  "ws-messages": "ws_messages"
}
export const limitOfKey = (key: string) => LIMIT_OF_PREFIX[key.slice(0, key.indexOf(":"))] ?? "other"

/**
 * A provider's free-text reason reduced to a bounded label: the HTTP status it answered, or what kind of
 * transport failure it was.
 */
export const reasonLabel = (outcome: PushOutcome) => {
  if (outcome._tag === "Unregistered") return "unregistered"
  if (outcome._tag === "Delivered") return "delivered"
  const status = /\bHTTP (\d{3})\b/.exec(outcome.reason)?.[1]
  if (status !== undefined) return `http_${status}`
  if (/unreachable/i.test(outcome.reason)) return "unreachable"
  if (/did not answer|timed? ?out/i.test(outcome.reason)) return "timeout"
  if (/sender died/i.test(outcome.reason)) return "sender_died"
  return "other"
}

const countedRateLimiter = Layer.effect(
  RateLimiter,
  Effect.map(RateLimiter, (limiter) =>
    RateLimiter.of({
      consume: (options) =>
        Effect.tap(limiter.consume(options), (decision) => {
          if (!decision.allowed) recordRateLimitRefusal(limitOfKey(options.key))
        })
    })
  )
)

const instrumentedPushSender = (config: AppSettings, tracing: boolean) =>
  Layer.effect(
    PushSender,
    Effect.map(PushSender, (sender) =>
      PushSender.of({
        send: (push) => {
          const sent = Effect.tap(sender.send(push), (outcome) => {
            if (outcome._tag !== "Delivered") {
              recordPushFailure(config.push.provider, outcome._tag.toLowerCase(), reasonLabel(outcome))
            }
            return tracing
              ? Effect.annotateCurrentSpan({ "push.outcome": outcome._tag, "push.reason": reasonLabel(outcome) })
              : Effect.void
          })
          return tracing
            ? Effect.withSpan(sent, `push.send ${config.push.provider}`, {
                kind: "client",
                attributes: {
                  "push.provider": config.push.provider,
                  "push.platform": push.platform,
                  "push.type": push.type,
                  "enduser.id": push.userId
                }
              })
            : sent
        }
      })
    )
  )

const tracedSmsSender = (config: AppSettings) =>
  Layer.effect(
    SmsSender,
    Effect.map(SmsSender, (sender) =>
      SmsSender.of({
        send: (sms) =>
          Effect.withSpan(sender.send(sms), `sms.send ${config.sms.provider}`, {
            kind: "client",
            attributes: { "sms.provider": config.sms.provider }
          })
      })
    )
  )

const unchanged = <I, S>(tag: Context.Tag<I, S>) => Layer.effect(tag, tag)

/** The instrumented ports for the telemetry that is on; the adapters unchanged when none is. */
export const InstrumentedPorts = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    const tracing = config.telemetry.otlpEndpoint !== undefined
    const metrics = tracing || config.telemetry.metricsPort !== undefined
    return Layer.mergeAll(
      metrics ? countedRateLimiter : unchanged(RateLimiter),
      metrics ? instrumentedPushSender(config, tracing) : unchanged(PushSender),
      tracing ? tracedSmsSender(config) : unchanged(SmsSender)
    )
  })
)
