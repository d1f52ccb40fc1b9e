import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { type Sms, SmsDeliveryFailed, SmsSender } from "@talab/core"
import { Effect, Exit, Layer, TestClock } from "effect"
import { maskPhone, maskPhonesIn, maskToken } from "../../src/adapters/LogMasks.js"
import { ConsoleSms, SmsOutbox } from "../../src/adapters/sms/index.js"
import { captureLogs } from "./support/logCapture.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "talab-sms-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const readJsonLines = (path: string) =>
  Effect.promise(() => readFile(path, "utf8")).pipe(
    Effect.map((text) => {
      expect(text.endsWith("\n")).toBe(true)
      return text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown)
    })
  )

const recordingSender = (failFor?: string) => {
  const sent: Array<Sms> = []
  const sender = SmsSender.of({
    send: (sms) =>
      sms.to === failFor
        ? Effect.fail(new SmsDeliveryFailed({ reason: "rejected", status: 400 }))
        : Effect.sync(() => {
            sent.push(sms)
          })
  })
  return { sent, sender }
}

describe("ConsoleSms", () => {
  const sms = { to: "+966501234567", body: "Your Talab code is 482913", code: "482913" }

  it.effect("in development: a warning with the number masked and the text, then the code on a line of its own", () => {
    const { logs, layer } = captureLogs()
    return Effect.gen(function* () {
      yield* (yield* SmsSender).send(sms)
      expect(logs).toHaveLength(2)
      expect(logs[0]!.level).toBe("WARN")
      expect(logs[0]!.annotations).toEqual({ to: "+9665******67", text: "Your Talab code is 482913" })
      expect(logs[1]!.level).toBe("INFO")
      expect(JSON.stringify(logs[1]!.message)).toContain("OTP for +9665******67: 482913")
    }).pipe(Effect.provide(Layer.merge(ConsoleSms.layer({ showText: true }), layer)))
  })

  it.effect("in production: neither the number nor the code", () => {
    const { logs, layer } = captureLogs()
    return Effect.gen(function* () {
      yield* (yield* SmsSender).send(sms)
      expect(logs).toHaveLength(1)
      expect(logs[0]!.annotations).toEqual({ to: "+9665******67" })
      expect(JSON.stringify(logs)).not.toContain("482913")
      expect(JSON.stringify(logs)).not.toContain("+966501234567")
    }).pipe(Effect.provide(Layer.merge(ConsoleSms.layer({ showText: false }), layer)))
  })
})

describe("log masks", () => {
  it("keeps the country code, one digit and the last two of a number; the first and last four of a token", () => {
    expect(maskPhone("+966501234567")).toBe("+9665******67")
    expect(maskPhone("+14155552671")).toBe("+1415*****71")
    expect(maskPhone("+1234567")).toBe("+*******")
    expect(maskToken("fcm-token-abcdefghijklmnop-1234")).toBe("fcm-…1234")
    expect(maskToken("short-token")).toBe("***********")
    expect(maskPhonesIn("The 'To' number +966501234567 is not valid")).toBe(
      "The 'To' number +9665******67 is not valid"
    )
  })
})

describe("SmsOutbox", () => {
  it.scoped("appends one JSON line per sent SMS with the code and the Clock's time", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "nested", "sms.jsonl")
      const inner = recordingSender()
      const sender = yield* SmsOutbox.withOutboxFile(path)(inner.sender)

      yield* TestClock.setTime(Date.parse("2025-03-01T10:00:00.000Z"))
      yield* sender.send({ to: "+966501234567", body: "Your Talab code is 482913", code: "482913" })
      yield* TestClock.adjust("90 seconds")
      yield* sender.send({ to: "+966509876543", body: "Welcome to Talab" })

      expect(inner.sent.map((sms) => sms.to)).toEqual(["+966501234567", "+966509876543"])
      expect(yield* readJsonLines(path)).toEqual([
        { to: "+966501234567", body: "Your Talab code is 482913", code: "482913", sent_at: "2025-03-01T10:00:00.000Z" },
        { to: "+966509876543", body: "Welcome to Talab", code: null, sent_at: "2025-03-01T10:01:30.000Z" }
      ])
    })
  )

  it.scoped("writes no line when the inner sender fails, and passes the failure on", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "sms.jsonl")
      const sender = yield* SmsOutbox.withOutboxFile(path)(recordingSender("+966500000000").sender)

      const exit = yield* Effect.exit(sender.send({ to: "+966500000000", body: "x", code: "111111" }))
      yield* sender.send({ to: "+966501111111", body: "y", code: "222222" })

      expect(exit).toStrictEqual(Exit.fail(new SmsDeliveryFailed({ reason: "rejected", status: 400 })))
      const lines = yield* readJsonLines(path)
      expect(lines).toEqual([{ to: "+966501111111", body: "y", code: "222222", sent_at: "1970-01-01T00:00:00.000Z" }])
    })
  )

  it.scoped("keeps lines whole when many SMS are sent concurrently", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "sms.jsonl")
      const longBody = "x".repeat(20_000)
      const sender = yield* SmsOutbox.withOutboxFile(path)(recordingSender().sender)

      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => sender.send({ to: `+9665000000${String(i).padStart(2, "0")}`, body: longBody, code: String(i) }),
        { concurrency: "unbounded" }
      )

      const lines = (yield* readJsonLines(path)) as Array<{ to: string; body: string; code: string }>
      expect(lines).toHaveLength(50)
      expect(lines.every((line) => line.body === longBody)).toBe(true)
      expect(new Set(lines.map((line) => line.code)).size).toBe(50)
    })
  )

  it.scoped("layer decorates the SmsSender provided below it", () =>
    Effect.gen(function* () {
      const path = join(yield* tempDir, "sms.jsonl")
      const { layer: logLayer } = captureLogs()
      yield* Effect.gen(function* () {
        yield* (yield* SmsSender).send({ to: "+966501234567", body: "code 123456", code: "123456" })
      }).pipe(
        Effect.provide(
          SmsOutbox.layer(path).pipe(Layer.provide(ConsoleSms.layer({ showText: true })), Layer.merge(logLayer))
        )
      )

      expect(yield* readJsonLines(path)).toEqual([
        { to: "+966501234567", body: "code 123456", code: "123456", sent_at: "1970-01-01T00:00:00.000Z" }
      ])
    })
  )
})
