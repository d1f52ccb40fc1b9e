import { SmsSender } from "@talab/core"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as JsonLinesFile from "../JsonLinesFile.js"

type SmsSenderService = Context.Tag.Service<SmsSender>

/**
 * Decorates an SmsSender so that every SMS it sends successfully is appended to `path` as one JSON line
 * `{"to","body","code","sent_at"}` (`code` is the one-time code or null, `sent_at` ISO 8601 from Effect's Clock).
 *
 * Appends of one decorated sender are serialized, so lines never interleave. Give each file one decorator.
 */
export const withOutboxFile =
  (path: string) =>
  (inner: SmsSenderService): Effect.Effect<SmsSenderService> =>
    Effect.gen(function* () {
      // The SMS has already gone out; a failed outbox write must not turn it into a delivery failure.
      const appendLine = yield* JsonLinesFile.appender(path, "SMS outbox append failed")

      return SmsSender.of({
        send: (sms) =>
          Effect.gen(function* () {
            yield* inner.send(sms)
            const sentAt = new Date(yield* Clock.currentTimeMillis).toISOString()
            const record = { to: sms.to, body: sms.body, code: sms.code ?? null, sent_at: sentAt }
            yield* appendLine(record)
          })
      })
    })

/**
 * Layer that replaces the SmsSender below it with one that also writes the outbox file.
 * Use as `SmsOutbox.layer(path).pipe(Layer.provide(ConsoleSms.layer({ showText: false })))`.
 */
export const layer = (path: string): Layer.Layer<SmsSender, never, SmsSender> =>
  Layer.effect(SmsSender, Effect.flatMap(SmsSender, withOutboxFile(path)))
