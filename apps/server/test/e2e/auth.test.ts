import { describe, expect, it } from "vitest"
import { ARABIC, expectError, ISO_UTC, spacedAndDashed, UUID } from "../support/fixtures.js"
import { backends, client, newPhone, relaxedLimits, signInOverHttp, useServer } from "../support/harness.js"
import { claimsOf, signHs256, unsecured } from "../support/jwt.js"

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const en = { "accept-language": "en" }
const json = { "content-type": "application/json" }

describe.each(backends)("auth on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, { settings: { ...relaxedLimits, adminPhoneNumbers: [adminPhone] } })
  const api = () => client(server())

  const requestCode = async (phone: string) => {
    const response = await api().post("/auth/request-otp", { body: { phone_number: phone } })
    expect(response.status).toBe(200)
    const code = server().sms.lastCode(phone)
    if (code === undefined) throw new Error(`no code sent to ${phone}`)
    return code
  }
  const verify = (phone: string, code: string, headers: Record<string, string> = {}) =>
    api().post("/auth/verify-otp", { body: { phone_number: phone, otp_code: code }, headers })
  const wrongCodeFor = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0")

  describe("POST /auth/request-otp", () => {
    it("sends a 6-digit code to the number and answers when it expires, 10 minutes ahead", async () => {
      const phone = newPhone()
      const before = server().clock.now().getTime()
      const response = await api().post("/auth/request-otp", { body: { phone_number: phone }, headers: en })
      expect(response.status).toBe(200)
      expect(response.body.success).toBe(true)
      expect(response.body.data.expires_at).toMatch(ISO_UTC)
      const expiresIn = new Date(response.body.data.expires_at).getTime() - before
      expect(expiresIn).toBeGreaterThanOrEqual(10 * MINUTE)
      expect(expiresIn).toBeLessThan(10 * MINUTE + 5_000)
      expect(response.body.data.message).toBe("A verification code has been sent")
      expect(server().sms.lastCode(phone)).toMatch(/^\d{6}$/)
    })

    it("answers a known number exactly as an unknown one", async () => {
      const known = await signInOverHttp(server(), api())
      const answers = await Promise.all(
        [known.phone, newPhone()].map((phone) => api().post("/auth/request-otp", { body: { phone_number: phone } }))
      )
      const shapes = answers.map((a) => ({
        status: a.status,
        keys: Object.keys(a.body.data).sort(),
        message: a.body.data.message
      }))
      expect(shapes[0]).toEqual(shapes[1])
      expect(shapes[0]!.status).toBe(200)
    })

    it("accepts spaces and dashes and sends to the number in E.164", async () => {
      const phone = newPhone()
      const response = await api().post("/auth/request-otp", { body: { phone_number: spacedAndDashed(phone) } })
      expect(response.status).toBe(200)
      const code = server().sms.lastCode(phone)
      expect(code).toMatch(/^\d{6}$/)
      const verified = await verify(spacedAndDashed(phone), code!)
      expect(verified.status).toBe(200)
      expect(verified.body.data.user.phone_number).toBe(phone)
    })

    it.each([
      ["a fixed-line number", "+966112345678"],
      ["a number too short", "+96650123"],
      ["letters", "call me maybe"],
      ["an empty string", ""]
    ])("refuses %s with 400 on phone_number and sends nothing", async (_, phoneNumber) => {
      const sentBefore = server().sms.sent.length
      const response = await api().post("/auth/request-otp", { body: { phone_number: phoneNumber }, headers: en })
      const error = expectError(response, 400, "VALIDATION_ERROR", ["phone_number"])
      expect(error.details.phone_number).toEqual(["The phone number is not a valid mobile number"])
      expect(server().sms.sent.length).toBe(sentBefore)
    })

    it.each([
      ["a national number", "0501234567"],
      ["a number without +", "966501234567"],
      ["a number with 00 instead of +", "00966501234567"]
    ])("refuses %s with a message naming the missing +country code", async (_, phoneNumber) => {
      const response = await api().post("/auth/request-otp", { body: { phone_number: phoneNumber }, headers: en })
      const error = expectError(response, 400, "VALIDATION_ERROR", ["phone_number"])
      expect(error.details.phone_number).toEqual([
        "Add the country code: write the mobile number in international format starting with +, e.g. +966501234567"
      ])
      const arabic = await api().post("/auth/request-otp", { body: { phone_number: phoneNumber } })
      expect(arabic.body.error.details.phone_number).toEqual([
        "أضف رمز الدولة إلى رقم الجوال بالصيغة الدولية، مثل +966501234567"
      ])
    })

    it.each([
      ["malformed JSON", '{"phone_number": ', json, "body"],
      ["a JSON array", '["+966501234567"]', json, "body"],
      ["a JSON string", '"+966501234567"', json, "body"],
      ["an empty body with Content-Type: application/json", "", json, "body"],
      ["a body of null", "null", json, "body"],
      ["a missing field", "{}", json, "phone_number"],
      ["a number where a string is due", '{"phone_number": 966501234567}', json, "phone_number"]
    ])("refuses %s with 400 and sends nothing", async (_, rawBody, headers, field) => {
      const sentBefore = server().sms.sent.length
      const response = await api().raw.post("/auth/request-otp", { rawBody, headers })
      expectError(response, 400, "VALIDATION_ERROR", [field])
      expect(server().sms.sent.length).toBe(sentBefore)
    })

    it("refuses a request without any body (phone_number is required)", async () => {
      expectError(await api().post("/auth/request-otp"), 400, "VALIDATION_ERROR", ["body"])
    })

    it("ignores unknown fields", async () => {
      const phone = newPhone()
      const response = await api().raw.post("/auth/request-otp", {
        body: { phone_number: phone, is_admin: true, code: "000000" }
      })
      expect(response.status).toBe(200)
      expect(server().sms.lastCode(phone)).toMatch(/^\d{6}$/)
    })
  })

  describe("POST /auth/verify-otp", () => {
    it("creates an unknown number's user: Arabic, no name, no avatar, not admin, no seller profile", async () => {
      const phone = newPhone()
      const response = await verify(phone, await requestCode(phone))
      expect(response.status).toBe(200)
      const { user, tokens } = response.body.data
      expect(user).toEqual({
        id: expect.stringMatching(UUID),
        phone_number: phone,
        name: null,
        avatar_url: null,
        language: "ar",
        is_admin: false,
        has_seller_profile: false,
        created_at: expect.stringMatching(ISO_UTC)
      })
      expect(tokens).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 86400 })
      const claims = claimsOf(tokens.access_token)
      expect(claims.sub).toBe(user.id)
      expect((claims.exp as number) - (claims.iat as number)).toBe(86400)
      const refreshClaims = claimsOf(tokens.refresh_token)
      expect((refreshClaims.exp as number) - (refreshClaims.iat as number)).toBe(30 * 86400)
    })

    it("signs a known number into the same user", async () => {
      const first = await signInOverHttp(server(), api())
      const again = await signInOverHttp(server(), api(), first.phone)
      expect(again.userId).toBe(first.userId)
      expect(again.token).not.toBe(first.token)
    })

    it("makes a number of ADMIN_PHONE_NUMBERS an admin, and no other", async () => {
      const admin = await signInOverHttp(server(), api(), adminPhone)
      expect(admin.user.is_admin).toBe(true)
      expect((await api().get("/users/me", { token: admin.token })).body.data.is_admin).toBe(true)
      expect((await signInOverHttp(server(), api())).user.is_admin).toBe(false)
    })

    it.each([
      ["7 digits", "1234567"],
      ["5 digits", "12345"],
      ["letters", "12a456"],
      ["a number", 123456]
    ])("refuses a code of %s with 400 on otp_code, without using an attempt", async (_, otpCode) => {
      const phone = newPhone()
      const code = await requestCode(phone)
      for (let i = 0; i < 4; i++) {
        const response = await api().raw.post("/auth/verify-otp", {
          body: { phone_number: phone, otp_code: otpCode },
          headers: en
        })
        expectError(response, 400, "VALIDATION_ERROR", ["otp_code"])
      }
      expect((await verify(phone, code)).status).toBe(200)
    })

    it("refuses a missing phone_number and a missing code, naming both", async () => {
      expectError(await api().raw.post("/auth/verify-otp", { body: {} }), 400, "VALIDATION_ERROR", [
        "phone_number",
        "otp_code"
      ])
    })

    it("refuses a fixed-line number with 400", async () => {
      const response = await verify("+966112345678", "123456")
      expectError(response, 400, "VALIDATION_ERROR", ["phone_number"])
    })

    it("answers INVALID_OTP to a wrong code, in the request's language", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      const english = expectError(await verify(phone, wrongCodeFor(code), en), 401, "INVALID_OTP")
      expect(english.message).toBe("The verification code is incorrect")
      const arabic = expectError(await verify(phone, wrongCodeFor(code)), 401, "INVALID_OTP")
      expect(arabic.message).toMatch(ARABIC)
    })

    it("answers INVALID_OTP when no code was requested for the number", async () => {
      expectError(await verify(newPhone(), "123456"), 401, "INVALID_OTP")
    })

    it("lets the right code in after two wrong ones", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      for (let i = 0; i < 2; i++) expectError(await verify(phone, wrongCodeFor(code)), 401, "INVALID_OTP")
      expect((await verify(phone, code)).status).toBe(200)
    })

    it("refuses the 4th attempt on a code with OTP_ATTEMPTS_EXCEEDED, even with the right code", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      for (let i = 0; i < 3; i++) expectError(await verify(phone, wrongCodeFor(code)), 401, "INVALID_OTP")
      expectError(await verify(phone, code), 401, "OTP_ATTEMPTS_EXCEEDED")
      expectError(await verify(phone, code), 401, "OTP_ATTEMPTS_EXCEEDED")
      const fresh = await requestCode(phone)
      expect((await verify(phone, fresh)).status).toBe(200)
    })

    it("lets a code in until 10 minutes have passed, then answers OTP_EXPIRED", async () => {
      const early = newPhone()
      const late = newPhone()
      const earlyCode = await requestCode(early)
      const lateCode = await requestCode(late)
      server().clock.advance(10 * MINUTE - 2_000)
      expect((await verify(early, earlyCode)).status).toBe(200)
      server().clock.advance(2_000)
      expectError(await verify(late, lateCode), 401, "OTP_EXPIRED")
    })

    it("sends the live code again, with its first expiry, instead of replacing it", async () => {
      const phone = newPhone()
      const first = await api().post("/auth/request-otp", { body: { phone_number: phone } })
      const code = server().sms.lastCode(phone)!
      server().clock.advance(3 * MINUTE)
      const again = await api().post("/auth/request-otp", { body: { phone_number: phone } })
      expect(again.body.data.expires_at).toBe(first.body.data.expires_at)
      expect(
        server()
          .sms.sent.filter((sms) => sms.to === phone)
          .map((sms) => sms.code)
      ).toEqual([code, code])
      expect((await verify(phone, code)).status).toBe(200)
    })

    it("sends one code to requests racing for a number with none", async () => {
      const phone = newPhone()
      const answers = await Promise.all(
        Array.from({ length: 3 }, () => api().post("/auth/request-otp", { body: { phone_number: phone } }))
      )
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
      const sent = server()
        .sms.sent.filter((sms) => sms.to === phone)
        .map((sms) => sms.code)
      expect(new Set(sent).size).toBe(1)
      expect((await verify(phone, sent[0]!)).status).toBe(200)
    })

    it("keeps the attempts a live code has used when it is sent again", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      for (let i = 0; i < 2; i++) expectError(await verify(phone, wrongCodeFor(code)), 401, "INVALID_OTP")
      expect(await requestCode(phone)).toBe(code)
      expectError(await verify(phone, wrongCodeFor(code)), 401, "INVALID_OTP")
      expectError(await verify(phone, code), 401, "OTP_ATTEMPTS_EXCEEDED")
    })

    it("replaces a code that expired, was used, or used up its attempts with a new one", async () => {
      const phone = newPhone()
      const expired = await requestCode(phone)
      server().clock.advance(10 * MINUTE)
      const afterExpiry = await requestCode(phone)
      const used = afterExpiry
      expect((await verify(phone, used)).status).toBe(200)
      const afterUse = await requestCode(phone)
      for (let i = 0; i < 3; i++) await verify(phone, wrongCodeFor(afterUse))
      server().clock.advance(10 * MINUTE) // the number's three codes in ten minutes
      const afterExhaustion = await requestCode(phone)
      // Each new code is its own: one equal to the one before would be a one-in-a-million chance, three in a row none.
      const codes = [expired, afterExpiry, afterUse, afterExhaustion]
      expect(codes.slice(1).filter((code, i) => code === codes[i])).toHaveLength(0)
      expectError(await verify(phone, afterUse), 401, "INVALID_OTP")
      expect((await verify(phone, afterExhaustion)).status).toBe(200)
    })

    it("lets a code in once", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      expect((await verify(phone, code)).status).toBe(200)
      expectError(await verify(phone, code), 401, "INVALID_OTP")
    })

    it("lets a code in only for the number it was sent to", async () => {
      const owner = newPhone()
      const other = newPhone()
      const code = await requestCode(owner)
      await requestCode(other)
      expectError(
        await verify(other, code === server().sms.lastCode(other) ? wrongCodeFor(code) : code),
        401,
        "INVALID_OTP"
      )
      expect((await verify(owner, code)).status).toBe(200)
    })

    it("of several verifies racing with the right code, lets exactly one in", async () => {
      const phone = newPhone()
      const code = await requestCode(phone)
      const answers = await Promise.all(Array.from({ length: 8 }, () => verify(phone, code)))
      const statuses = answers.map((a) => a.status).sort()
      expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401])
      for (const refused of answers.filter((a) => a.status === 401)) expect(refused.body.error.code).toBe("INVALID_OTP")
    })
  })

  describe("tokens", () => {
    it("an access token works for 24 hours, then answers 401; the refresh token gets a new one", async () => {
      const me = await signInOverHttp(server(), api())
      server().clock.advance(DAY - 5_000)
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
      server().clock.advance(5_000 + 1_000)
      expectError(await api().get("/users/me", { token: me.token }), 401, "UNAUTHORIZED")
      const refreshed = await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })
      expect(refreshed.status).toBe(200)
      expect(refreshed.body.data).toEqual({ access_token: expect.any(String), expires_in: 86400 })
      const profile = await api().get("/users/me", { token: refreshed.body.data.access_token })
      expect(profile.status).toBe(200)
      expect(profile.body.data.id).toBe(me.userId)
    })

    it("keeps the refresh token (no rotation) for 30 days, then answers INVALID_REFRESH_TOKEN", async () => {
      const me = await signInOverHttp(server(), api())
      for (let i = 0; i < 2; i++) {
        expect((await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })).status).toBe(200)
      }
      server().clock.advance(30 * DAY - 5_000)
      expect((await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })).status).toBe(200)
      server().clock.advance(6_000)
      expectError(
        await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } }),
        401,
        "INVALID_REFRESH_TOKEN"
      )
    })

    it("refuses a token signed with another key, a token with alg none, and a tampered token", async () => {
      const me = await signInOverHttp(server(), api())
      const other = await signInOverHttp(server(), api())
      const claims = claimsOf(me.token)
      const [header, , signature] = me.token.split(".")
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: other.userId })).toString("base64url")}.${signature}`
      for (const token of [signHs256(claims, "another-key-another-key-another-key-!!"), unsecured(claims), tampered]) {
        expectError(await api().get("/users/me", { token }), 401, "UNAUTHORIZED")
      }
      const refreshClaims = claimsOf(me.refreshToken)
      for (const refreshToken of [
        signHs256(refreshClaims, "another-key-another-key-another-key-!!"),
        unsecured(refreshClaims)
      ]) {
        expectError(
          await api().post("/auth/refresh", { body: { refresh_token: refreshToken } }),
          401,
          "INVALID_REFRESH_TOKEN"
        )
      }
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
    })

    it("refuses a refresh token as an access token, and an access token on /auth/refresh", async () => {
      const me = await signInOverHttp(server(), api())
      expectError(await api().get("/users/me", { token: me.refreshToken }), 401, "UNAUTHORIZED")
      expectError(
        await api().post("/auth/refresh", { body: { refresh_token: me.token } }),
        401,
        "INVALID_REFRESH_TOKEN"
      )
    })

    it("refuses a missing, empty, malformed or non-bearer Authorization header with 401", async () => {
      const me = await signInOverHttp(server(), api())
      expectError(await api().get("/users/me"), 401, "UNAUTHORIZED")
      for (const authorization of [
        "Bearer ",
        "Bearer not-a-jwt",
        `Basic ${me.token}`,
        `Digest ${me.token}`,
        me.token
      ]) {
        expectError(await api().get("/users/me", { headers: { authorization } }), 401, "UNAUTHORIZED")
      }
      expectError(
        await api().post("/auth/refresh", { body: { refresh_token: "not-a-jwt" } }),
        401,
        "INVALID_REFRESH_TOKEN"
      )
    })

    it("takes the Bearer scheme in any case", async () => {
      const me = await signInOverHttp(server(), api())
      for (const scheme of ["Bearer", "bearer", "BEARER"]) {
        expect((await api().get("/users/me", { headers: { authorization: `${scheme} ${me.token}` } })).status).toBe(200)
      }
    })

    it("refuses bad refresh bodies with 400", async () => {
      expectError(await api().raw.post("/auth/refresh", { body: {} }), 400, "VALIDATION_ERROR", ["refresh_token"])
      expectError(await api().raw.post("/auth/refresh", { body: { refresh_token: 42 } }), 400, "VALIDATION_ERROR", [
        "refresh_token"
      ])
      expectError(await api().raw.post("/auth/refresh", { rawBody: "{", headers: json }), 400, "VALIDATION_ERROR", [
        "body"
      ])
    })
  })

  describe("POST /auth/logout", () => {
    it("ends the session: its access token and its refresh token answer 401 from then on", async () => {
      const me = await signInOverHttp(server(), api())
      const response = await api().post("/auth/logout", { token: me.token, body: {}, headers: en })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ success: true, data: {}, message: "You have been signed out" })
      expectError(await api().get("/users/me", { token: me.token }), 401, "UNAUTHORIZED")
      expectError(
        await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } }),
        401,
        "INVALID_REFRESH_TOKEN"
      )
      expectError(await api().post("/auth/logout", { token: me.token }), 401, "UNAUTHORIZED")
    })

    it("leaves the user's other sessions alone", async () => {
      const first = await signInOverHttp(server(), api())
      const second = await signInOverHttp(server(), api(), first.phone)
      expect((await api().post("/auth/logout", { token: first.token })).status).toBe(200)
      expect((await api().get("/users/me", { token: second.token })).status).toBe(200)
      expect((await api().post("/auth/refresh", { body: { refresh_token: second.refreshToken } })).status).toBe(200)
    })

    it("needs no body at all, and takes a device_token", async () => {
      const bare = await signInOverHttp(server(), api())
      expect((await api().post("/auth/logout", { token: bare.token })).status).toBe(200)
      const withDevice = await signInOverHttp(server(), api())
      const response = await api().post("/auth/logout", {
        token: withDevice.token,
        body: { device_token: "device-of-logout" }
      })
      expect(response.status).toBe(200)
    })

    it("refuses a refresh token as its bearer", async () => {
      const me = await signInOverHttp(server(), api())
      expectError(await api().post("/auth/logout", { token: me.refreshToken }), 401, "UNAUTHORIZED")
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
    })

    it.each([
      ["an empty body with Content-Type: application/json", ""],
      ["a body of null", "null"],
      ["malformed JSON", "{"],
      ["a JSON array", "[]"],
      ["a device_token that is not a string", '{"device_token": 7}']
    ])("refuses %s with 400 and keeps the session", async (_, rawBody) => {
      const me = await signInOverHttp(server(), api())
      expectError(
        await api().raw.post("/auth/logout", { token: me.token, rawBody, headers: json }),
        400,
        "VALIDATION_ERROR"
      )
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
      expect((await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })).status).toBe(200)
    })

    it("answers 401 without a token", async () => {
      expectError(await api().post("/auth/logout", { body: {} }), 401, "UNAUTHORIZED")
    })
  })
})
