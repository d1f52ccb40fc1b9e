import { PushSender } from "@talab/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../http-server/test/support/migrated-databases.js"
import { newPhoneNumber, PushRecorder, startTestServer, type TestServer, type TestServerOptions } from "../src/index.js"

describe("newPhoneNumber", () => {
  let server: TestServer
  beforeAll(async () => {
    // From the run's migrated database: initdb and the migrations cost seconds of CPU, and the numbers do not
    // depend on the database. The start without options is plain-node.test.ts's (packaging checks).
    server = await startTestServer(await withMigratedDump<TestServerOptions>({}))
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

describe("testPhoneNumbers", () => {
  const post = (server: TestServer, path: string, body: unknown) =>
    fetch(`${server.apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })

  it("signs a listed number in with its code and no SMS until the end of its day, by the server's clock", async () => {
    const phone = newPhoneNumber()
    const lastDay = new Date().toISOString().slice(0, 10)
    // From the run's migrated database: the start from an empty one is plain-node.test.ts's (packaging checks).
    const server = await startTestServer(
      await withMigratedDump<TestServerOptions>({ testPhoneNumbers: `${phone}=246810@${lastDay}` })
    )
    try {
      expect((await post(server, "/auth/request-otp", { phone_number: phone })).status).toBe(200)
      expect(server.sms.lastCode(phone)).toBeUndefined()
      expect((await post(server, "/auth/verify-otp", { phone_number: phone, otp_code: "246810" })).status).toBe(200)

      server.clock.advance(Date.parse(`${lastDay}T00:00:00.000Z`) + 86_400_000 - server.clock.now().getTime())
      expect((await post(server, "/auth/request-otp", { phone_number: phone })).status).toBe(200)
      expect(server.sms.lastCode(phone)).toMatch(/^\d{6}$/)
    } finally {
      await server.close()
    }
  }, 60_000)

  it("throws on a bad entry, naming it, before starting anything", async () => {
    await expect(startTestServer({ testPhoneNumbers: "+966500000000=12345@2027-06-30" })).rejects.toThrow(
      /^testPhoneNumbers: "\+966500000000=12345@2027-06-30": the code must be 6 digits$/
    )
  })
})
