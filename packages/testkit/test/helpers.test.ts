import { PushSender } from "@talab/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newPhoneNumber, PushRecorder, startTestServer, type TestServer } from "../src/index.js"

describe("newPhoneNumber", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  }, 60_000)
  afterAll(() => server.close())

  it("hands out distinct numbers the server accepts as mobile numbers", async () => {
    const phones = Array.from({ length: 3 }, () => newPhoneNumber())
    expect(new Set(phones).size).toBe(3)
    for (const phone of phones) {
      const response = await fetch(`${server.apiUrl}/auth/request-otp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ phone_number: phone })
      })
      expect(response.status).toBe(200)
      expect(server.sms.lastCode(phone)).toMatch(/^\d{6}$/)
    }
  })
})

describe("PushRecorder.waitFor", () => {
  const push = (userId: string) =>
    PushSender.pipe(
      Effect.flatMap((sender) =>
        sender.send({
          userId,
          platform: "ios",
          pushToken: "t",
          type: "message",
          title: "New message",
          body: "Hi",
          data: {}
        })
      )
    )

  it("resolves with a push delivered after the call", async () => {
    const pushes = new PushRecorder()
    const waiting = pushes.waitFor((p) => p.userId === "u2")
    setTimeout(() => {
      void Effect.runPromise(push("u1").pipe(Effect.zipRight(push("u2")), Effect.provide(pushes.layer)))
    }, 30)
    expect((await waiting).userId).toBe("u2")
  })

  it("rejects when no push matches in time", async () => {
    const pushes = new PushRecorder()
    await expect(pushes.waitFor((p) => p.userId === "nobody", 50)).rejects.toThrow("within 50 ms")
  })
})
