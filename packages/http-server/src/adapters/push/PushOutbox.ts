import { PushSender } from "@talab/core"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as JsonLinesFile from "../JsonLinesFile.js"

type PushSenderService = Context.Tag.Service<PushSender>

/**
 * Decorates a PushSender so that every push the inner sender reports `Delivered` is appended to `path` as one
 * JSON line `{"user_id","platform","push_token","type","title","body","data","sent_at"}`
 * (`sent_at` ISO 8601 from Effect's Clock). Other outcomes are passed through without a line.
 *
 * Appends of one decorated sender are serialized, so lines never interleave. Give each file one decorator.
 */
export const withOutboxFile =
  (path: string) =>
  (inner: PushSenderService): Effect.Effect<PushSenderService> =>
    Effect.gen(function* () {
      // The push is already delivered; a failed outbox write must not change its outcome.
      const appendLine = yield* JsonLinesFile.appender(path, "Push outbox append failed")

      return PushSender.of({
        send: (push) =>
          Effect.gen(function* () {
            const outcome = yield* inner.send(push)
            if (outcome._tag !== "Delivered") return outcome
            const sentAt = new Date(yield* Clock.currentTimeMillis).toISOString()
            const record = {
              user_id: push.userId,
              platform: push.platform,
              push_token: push.pushToken,
              type: push.type,
              title: push.title,
              body: push.body,
              data: push.data,
              sent_at: sentAt
            }
            yield* appendLine(record)
            return outcome
          })
      })
    })

/**
 * Layer that replaces the PushSender below it with one that also writes the outbox file.
 * Use as `PushOutbox.layer(path).pipe(Layer.provide(LogPush.layer()))`.
 */
export const layer = (path: string): Layer.Layer<PushSender, never, PushSender> =>
  Layer.effect(PushSender, Effect.flatMap(PushSender, withOutboxFile(path)))
