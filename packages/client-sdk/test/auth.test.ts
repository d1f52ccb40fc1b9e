import { describe, expect, it } from "vitest"
import { createTalabClient, isTalabApiError, type SessionTokens, type TokenStore } from "../src/index.js"
import { countingFetch, newPhone, PAST_ACCESS_TOKEN_LIFETIME, signedInClient, useTestServer } from "./support.js"

/** A token store that answers asynchronously, like secure storage, and records what was written. */
const slowStore = () => {
  let tokens: SessionTokens | null = null
  const writes: Array<SessionTokens | null> = []
  const later = () => new Promise((resolve) => setTimeout(resolve, 5))
  const store: TokenStore = {
    get: async () => {
      await later()
      return tokens
    },
    set: async (next) => {
      await later()
      tokens = next
      writes.push(next)
    },
    clear: async () => {
      await later()
      tokens = null
      writes.push(null)
    }
  }
  return { store, writes, current: () => tokens }
}

describe("sign-in and session", () => {
  const server = useTestServer()

  it("signs in with the code sent by SMS and stores the tokens in the token store", async () => {
    const { store, current } = slowStore()
    const talab = createTalabClient({ baseUrl: server().baseUrl, tokenStore: store })
    const phone = newPhone()
    const signedIn: Array<unknown> = []
    talab.on("signedIn", (event) => signedIn.push(event))

    const requested = await talab.auth.requestOtp(phone)
    expect(Date.parse(requested.expires_at)).toBeGreaterThan(Date.now())
    const code = server().sms.lastCode(phone)!
    const { user, tokens } = await talab.auth.signIn({ phoneNumber: phone, otpCode: code })

    expect(user.phone_number).toBe(phone)
    expect(current()).toEqual({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token })
    expect(signedIn).toHaveLength(1)
    expect(await talab.auth.isSignedIn()).toBe(true)
    const { data: me } = await talab.GET("/users/me")
    expect(me.id).toBe(user.id)
  })

  it("uses a session already in the token store (an app restarted) without signing in again", async () => {
    const { talab } = await signedInClient(server())
    const tokens = (await talab.auth.tokens())!
    const restarted = createTalabClient({ baseUrl: server().baseUrl, tokenStore: slowStore().store })
    await expect(restarted.GET("/users/me")).rejects.toMatchObject({ code: "UNAUTHORIZED", status: 401 })

    const { store } = slowStore()
    await store.set(tokens)
    const withSession = createTalabClient({ baseUrl: server().baseUrl, tokenStore: store })
    const { data: me } = await withSession.GET("/users/me")
    expect(me.id).toBe((await talab.GET("/users/me")).data.id)
  })

  it("refreshes an expired access token transparently once the clock passed 24 hours, and the call succeeds", async () => {
    const counting = countingFetch()
    const { talab, userId } = await signedInClient(server(), { fetch: counting.fetch })
    const before = (await talab.auth.tokens())!
    const refreshed: Array<unknown> = []
    talab.on("tokensRefreshed", (event) => refreshed.push(event))

    server().clock.advance(PAST_ACCESS_TOKEN_LIFETIME)
    const { data: me } = await talab.GET("/users/me")

    expect(me.id).toBe(userId)
    expect(counting.calls.filter((c) => c.path === "/users/me").map((c) => c.status)).toEqual([401, 200])
    expect(counting.count("/auth/refresh")).toBe(1)
    const after = (await talab.auth.tokens())!
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.refreshToken).toBe(before.refreshToken)
    expect(refreshed).toHaveLength(1)
  })

  it("shares one refresh between concurrent calls that all found the token expired", async () => {
    const counting = countingFetch()
    const { talab } = await signedInClient(server(), { fetch: counting.fetch })
    server().clock.advance(PAST_ACCESS_TOKEN_LIFETIME)

    const answers = await Promise.all([
      talab.GET("/users/me"),
      talab.GET("/users/me"),
      talab.GET("/requests/my"),
      talab.GET("/conversations/my"),
      talab.GET("/offers/my")
    ])

    expect(answers.every((a) => a.success)).toBe(true)
    expect(counting.count("/auth/refresh")).toBe(1)
    expect(counting.calls.filter((c) => c.status === 401)).toHaveLength(5)
  })

  it("signs out cleanly when the refresh token is rejected after a logout: store cleared, signedOut emitted", async () => {
    const { talab } = await signedInClient(server())
    const { store, current } = slowStore()
    await store.set((await talab.auth.tokens())!)
    const signedOut: Array<unknown> = []
    const viaOption: Array<unknown> = []
    // A second device holding the same session, e.g. the app on a tablet restored from backup.
    const other = createTalabClient({
      baseUrl: server().baseUrl,
      tokenStore: store,
      onSignedOut: (e) => viaOption.push(e)
    })
    other.on("signedOut", (event) => signedOut.push(event))

    await talab.auth.signOut()
    const failure = await other.GET("/users/me").catch((error: unknown) => error)

    expect(isTalabApiError(failure, "UNAUTHORIZED")).toBe(true)
    expect(current()).toBeNull()
    expect(await other.auth.isSignedIn()).toBe(false)
    expect(signedOut).toEqual([{ reason: "session_expired" }])
    expect(viaOption).toEqual([{ reason: "session_expired" }])
    // Signed out: the next call is refused without another refresh attempt.
    await expect(other.GET("/users/me")).rejects.toMatchObject({ code: "UNAUTHORIZED" })
    expect(signedOut).toHaveLength(1)
  })

  it("signs out on its own logout: the server ends the session and the store is cleared", async () => {
    const { talab } = await signedInClient(server())
    const tokens = (await talab.auth.tokens())!
    const events: Array<unknown> = []
    talab.on("signedOut", (event) => events.push(event))

    await talab.auth.signOut({ deviceToken: "device-token-1" })

    expect(await talab.auth.tokens()).toBeNull()
    expect(events).toEqual([{ reason: "signed_out" }])
    const response = await fetch(`${server().apiUrl}/users/me`, {
      headers: { authorization: `Bearer ${tokens.accessToken}` }
    })
    expect(response.status).toBe(401)
  })

  it("names the device at sign-in, lists the sessions and ends one or all the others", async () => {
    const phone = newPhone()
    const laptop = await signedInClient(server(), { phone })
    const tablet = await signedInClient(server(), { phone })
    const talab = createTalabClient({ baseUrl: server().baseUrl })
    await talab.auth.requestOtp(phone)
    await talab.auth.signIn({
      phoneNumber: phone,
      otpCode: server().sms.lastCode(phone)!,
      device: { platform: "ios", name: "Sara's iPhone" }
    })

    const sessions = await talab.auth.sessions()
    expect(sessions).toHaveLength(3)
    expect(sessions[0]).toMatchObject({ device: { platform: "ios", name: "Sara's iPhone" }, current: true })
    expect(sessions.slice(1).map((s) => s.current)).toEqual([false, false])

    await talab.auth.endSession(sessions[2]!.id)
    await expect(laptop.talab.GET("/users/me")).rejects.toMatchObject({ code: "UNAUTHORIZED" })
    await expect(talab.auth.endSession(sessions[2]!.id)).rejects.toMatchObject({ code: "NOT_FOUND", status: 404 })
    expect(await talab.auth.endOtherSessions()).toBe(1)
    await expect(tablet.talab.GET("/users/me")).rejects.toMatchObject({ code: "UNAUTHORIZED" })
    expect((await talab.auth.sessions()).map((s) => s.current)).toEqual([true])
  })

  it("sends Accept-Language: error messages follow the client's language, and setLanguage changes it", async () => {
    const talab = createTalabClient({ baseUrl: server().baseUrl, language: "en" })
    const english = await talab.GET("/users/me").catch((error: unknown) => error)
    talab.setLanguage("ar")
    const arabic = await talab.GET("/users/me").catch((error: unknown) => error)

    expect(isTalabApiError(english) && isTalabApiError(arabic)).toBe(true)
    const [en, ar] = [english as Error, arabic as Error]
    expect(en.message).toMatch(/[A-Za-z]/)
    expect(ar.message).toMatch(/[\u0600-\u06FF]/)
    expect(ar.message).not.toBe(en.message)
  })

  it("does not refresh on a wrong code: INVALID_OTP is the caller's error", async () => {
    const counting = countingFetch()
    const talab = createTalabClient({ baseUrl: server().baseUrl, fetch: counting.fetch })
    const phone = newPhone()
    await talab.auth.requestOtp(phone)
    const wrong = server().sms.lastCode(phone) === "000000" ? "111111" : "000000"

    await expect(talab.auth.signIn({ phoneNumber: phone, otpCode: wrong })).rejects.toMatchObject({
      code: "INVALID_OTP",
      status: 401
    })
    expect(counting.count("/auth/refresh")).toBe(0)
    expect(await talab.auth.isSignedIn()).toBe(false)
  })

  it("refresh() renews ahead of time, and answers false without a session", async () => {
    const { talab } = await signedInClient(server())
    const before = (await talab.auth.tokens())!.accessToken
    server().clock.advance("1 second")
    expect(await talab.auth.refresh()).toBe(true)
    expect((await talab.auth.tokens())!.accessToken).not.toBe(before)

    const copy = createTalabClient({ baseUrl: server().baseUrl })
    await copy.auth.refresh().then((renewed) => expect(renewed).toBe(false))
  })
})
