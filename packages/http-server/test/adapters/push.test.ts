import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { type Push, PushOutcome, PushSender } from "@talab/core"
import { Effect, Layer, Logger, LogLevel, TestClock } from "effect"
import { LogPush, PushOutbox } from "../../src/adapters/push/index.js"
import { captureLogs } from "./support/logCapture.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "talab-push-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const readJsonLines = (path: string) =>
  Effect.promise(() => readFile(path, "utf8").catch(() => "")).pipe(
    Effect.map((text) =>
      text === ""
        ? []
        : text
            .trimEnd()
            .split("\n")
            .map((line) => JSON.parse(line) as unknown)
    )
  )

const offerAccepted: Push = {
  userId: "u-buyer",
  platform: "android",
  pushToken: "token-android-1",
  type: "offer_accepted",
  title: "Offer accepted",
  body: "Your deal is ready",
  data: { offer_id: "o-1", deal_id: "d-1" }
}

/** An inner sender that answers each push token with a fixed outcome. */
const scriptedSender = (outcomes: Record<string, PushOutcome>) =>
  PushSender.of({ send: (push) => Effect.succeed(outcomes[push.pushToken] ?? PushOutcome.Delivered()) })

describe("LogPush", () => {
  it.effect("logs each push at info with its token masked and no text; the text only at debug", () => {
    const { logs, layer } = captureLogs()
    const push = { ...offerAccepted, pushToken: "fcm-token-android-0123456789" }
    return Effect.gen(function* () {
      const outcome = yield* (yield* PushSender).send(push)

      expect(outcome).toStrictEqual(PushOutcome.Delivered())
      expect(logs.map((line) => line.level)).toEqual(["INFO", "DEBUG"])
      expect(logs[0]!.annotations).toEqual({
        user_id: "u-buyer",
        platform: "android",
        push_token: "fcm-…6789",
        type: "offer_accepted"
      })
      expect(logs[1]!.annotations).toEqual({
        title: "Offer accepted",
        body: "Your deal is ready",
        data: JSON.stringify({ offer_id: "o-1", deal_id: "d-1" })
      })
      expect(JSON.stringify(logs)).not.toContain(push.pushToken)
    }).pipe(Effect.provide(Layer.mergeAll(LogPush.layer(), layer, Logger.minimumLogLevel(LogLevel.Debug))))
  })
})

describe("PushOutbox", () => {
  it.scoped("appends a JSON line for delivered pushes only and passes every outcome through", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "push.jsonl")
      const retryable = PushOutcome.Retryable({ reason: "503", retryAfterMs: 1000 })
      const sender = yield* PushOutbox.withOutboxFile(path)(
        scriptedSender({
          gone: PushOutcome.Unregistered(),
          busy: retryable,
          bad: PushOutcome.Failed({ reason: "400" })
        })
      )

      yield* TestClock.setTime(Date.parse("2025-03-01T12:00:00.000Z"))
      const outcomes = [
        yield* sender.send(offerAccepted),
        yield* sender.send({ ...offerAccepted, pushToken: "gone" }),
        yield* sender.send({ ...offerAccepted, pushToken: "busy" }),
        yield* sender.send({ ...offerAccepted, pushToken: "bad" })
      ]
      yield* TestClock.adjust("2 seconds")
      outcomes.push(
        yield* sender.send({
          userId: "u-seller",
          platform: "ios",
          pushToken: "token-ios-1",
          type: "rating_prompt",
          title: "قيّم البائع",
          body: "كيف كانت الصفقة؟",
          data: { deal_id: "d-1" }
        })
      )

      expect(outcomes).toStrictEqual([
        PushOutcome.Delivered(),
        PushOutcome.Unregistered(),
        retryable,
        PushOutcome.Failed({ reason: "400" }),
        PushOutcome.Delivered()
      ])
      expect(yield* readJsonLines(path)).toEqual([
        {
          user_id: "u-buyer",
          platform: "android",
          push_token: "token-android-1",
          type: "offer_accepted",
          title: "Offer accepted",
          body: "Your deal is ready",
          data: { offer_id: "o-1", deal_id: "d-1" },
          sent_at: "2025-03-01T12:00:00.000Z"
        },
        {
          user_id: "u-seller",
          platform: "ios",
          push_token: "token-ios-1",
          type: "rating_prompt",
          title: "قيّم البائع",
          body: "كيف كانت الصفقة؟",
          data: { deal_id: "d-1" },
          sent_at: "2025-03-01T12:00:02.000Z"
        }
      ])
    })
  )

  it.scoped("keeps lines whole when many pushes are delivered concurrently", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "push.jsonl")
      const longBody = "y".repeat(20_000)
      const sender = yield* PushOutbox.withOutboxFile(path)(scriptedSender({}))

      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => sender.send({ ...offerAccepted, pushToken: `token-${i}`, body: longBody }),
        { concurrency: "unbounded" }
      )

      const lines = (yield* readJsonLines(path)) as Array<{ push_token: string; body: string }>
      expect(lines).toHaveLength(50)
      expect(lines.every((line) => line.body === longBody)).toBe(true)
      expect(new Set(lines.map((line) => line.push_token)).size).toBe(50)
    })
  )

  it.scoped("layer decorates the PushSender provided below it", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "push.jsonl")
      const { layer: logLayer } = captureLogs()
      yield* Effect.gen(function* () {
        yield* (yield* PushSender).send(offerAccepted)
      }).pipe(Effect.provide(PushOutbox.layer(path).pipe(Layer.provide(LogPush.layer()), Layer.merge(logLayer))))

      expect(yield* readJsonLines(path)).toMatchObject([
        { push_token: "token-android-1", sent_at: "1970-01-01T00:00:00.000Z" }
      ])
    })
  )
})
