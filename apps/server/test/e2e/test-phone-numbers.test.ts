import { describe, expect, it } from "vitest"
import { expectError } from "../support/fixtures.js"
import { backends, client, newPhone, relaxedLimits, useServer } from "../support/harness.js"

const DAY_MS = 24 * 60 * 60 * 1000

/** `YYYY-MM-DD` of a time, in UTC. */
const dayOf = (at: Date) => at.toISOString().slice(0, 10)

describe.each(backends)("TEST_PHONE_NUMBERS on %s", (backend) => {
  // Listed until the end of today (UTC) and through tomorrow; the expiry case moves the clock to the day after.
  const today = dayOf(new Date())
  const tomorrow = dayOf(new Date(Date.now() + DAY_MS))
  const [reviewer, limited, endsToday] = [newPhone(), newPhone(), newPhone()]
  const spaced = (phone: string) => `${phone.slice(0, 4)} ${phone.slice(4, 6)}-${phone.slice(6)}`
  const server = useServer(backend, {
    settings: relaxedLimits,
    testPhoneNumbers: `${spaced(reviewer)}=123456@${tomorrow},${limited}=222222@${tomorrow},${endsToday}=333333@${today}`
  })
  const api = () => client(server())
  const requestOtp = (phone: string) => api().post("/auth/request-otp", { body: { phone_number: phone } })
  const verify = (phone: string, code: string) =>
    api().post("/auth/verify-otp", { body: { phone_number: phone, otp_code: code } })

  it("signs in with the fixed code, sends no SMS, and logs the sign-in as a test number's with the number masked", async () => {
    const sent = server().sms.sent.length
    expect((await requestOtp(reviewer)).status).toBe(200)
    expect(server().sms.sent.length).toBe(sent)
    const verified = await verify(reviewer, "123456")
    expect(verified.status).toBe(200)
    expect(verified.body.data.user.phone_number).toBe(reviewer)
    const lines = server().logs.lines.filter((line) => line.message === "Auth: signed in with a test phone number")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: "INFO" })
    expect(JSON.stringify(lines[0])).not.toContain(reviewer)
    expect(lines[0]!.annotations.phone).toBe(`${reviewer.slice(0, 5)}******${reviewer.slice(-2)}`)
  })

  it("keeps the three attempts per code and the codes-per-number limit", async () => {
    expect((await requestOtp(limited)).status).toBe(200)
    for (let attempt = 0; attempt < 3; attempt++) expectError(await verify(limited, "999999"), 401, "INVALID_OTP")
    expectError(await verify(limited, "222222"), 401, "OTP_ATTEMPTS_EXCEEDED")
    expect((await requestOtp(limited)).status).toBe(200)
    expect((await requestOtp(limited)).status).toBe(200)
    expectError(await requestOtp(limited), 429, "RATE_LIMITED")
  })

  it("after the end of its last day (UTC) is an ordinary number: an SMS with a random code", async () => {
    const clock = server().clock
    clock.advance(Date.parse(`${tomorrow}T00:00:00.000Z`) - clock.now().getTime())
    expect((await requestOtp(endsToday)).status).toBe(200)
    const code = server().sms.lastCode(endsToday)
    expect(code).toMatch(/^\d{6}$/)
    if (code !== "333333") expectError(await verify(endsToday, "333333"), 401, "INVALID_OTP")
    expect((await verify(endsToday, code!)).status).toBe(200)
    // One still listed for today keeps working.
    expect((await requestOtp(reviewer)).status).toBe(200)
    expect((await verify(reviewer, "123456")).status).toBe(200)
  })
})
