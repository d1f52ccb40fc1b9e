import { describe, expect, it } from "vitest"
import { market, useMarketServer } from "../support/fixtures.js"
import { backends } from "../support/harness.js"

describe.each(backends)("conditional GETs on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  const get = (path: string, token: string | undefined, headers: Record<string, string> = {}) =>
    fetch(`${server().apiUrl}${path}`, {
      headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers }
    })

  it("tags a 200 GET and answers 304 with no body to a GET naming that tag; a write changes the tag at once", async () => {
    const buyer = await m.user("Buyer")
    const posted = await m.request(buyer)
    const first = await get(`/requests/${posted.id}`, buyer.token)
    expect(first.status).toBe(200)
    const tag = first.headers.get("etag")
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers.get("cache-control")).toBe("private, no-cache")
    expect((await first.json()).data.offer_count).toBe(0)

    const again = await get(`/requests/${posted.id}`, buyer.token, { "if-none-match": tag! })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe("")
    expect(again.headers.get("etag")).toBe(tag)
    expect(again.headers.get("x-request-id")).not.toBeNull()
    expect(again.headers.get("ratelimit-remaining")).not.toBeNull()

    // Weak and listed spellings name it too; another tag does not.
    expect((await get(`/requests/${posted.id}`, buyer.token, { "if-none-match": `"x", W/${tag}` })).status).toBe(304)
    expect((await get(`/requests/${posted.id}`, buyer.token, { "if-none-match": "*" })).status).toBe(304)
    expect((await get(`/requests/${posted.id}`, buyer.token, { "if-none-match": '"other"' })).status).toBe(200)

    const seller = await m.seller("Seller")
    await m.offer(seller, posted.id)
    const changed = await get(`/requests/${posted.id}`, buyer.token, { "if-none-match": tag! })
    expect(changed.status).toBe(200)
    expect(changed.headers.get("etag")).not.toBe(tag)
    expect((await changed.json()).data.offer_count).toBe(1)
  })

  it("tags lists and public reads; the tag follows the bytes, so a body the same in both languages has one tag", async () => {
    const buyer = await m.user("Buyer")
    const list = await get("/requests/my", buyer.token)
    expect(list.status).toBe(200)
    expect(list.headers.get("etag")).not.toBeNull()
    expect((await get("/requests/my", buyer.token, { "if-none-match": list.headers.get("etag")! })).status).toBe(304)

    const seller = await m.seller("Seller")
    const profile = await get(`/seller-profiles/${seller.profileId}`, undefined)
    expect(profile.status).toBe(200)
    expect(profile.headers.get("etag")).not.toBeNull()

    const arabic = await get("/users/me", buyer.token, { "accept-language": "ar" })
    const english = await get("/users/me", buyer.token, { "accept-language": "en" })
    expect(arabic.headers.get("etag")).toBe(english.headers.get("etag"))
    const arabicError = await get("/requests/not-there", buyer.token, { "accept-language": "ar" })
    expect(arabicError.status).toBe(404)
    expect(arabicError.headers.get("etag")).toBeNull()
  })

  it("never answers 304 to a write, an error or an auth route", async () => {
    const buyer = await m.user("Buyer")
    const posted = await m.request(buyer)
    const closed = await fetch(`${server().apiUrl}/requests/${posted.id}/close`, {
      method: "PUT",
      headers: { authorization: `Bearer ${buyer.token}`, "if-none-match": "*" }
    })
    expect(closed.status).toBe(200)
    expect(closed.headers.get("etag")).toBeNull()

    const sessions = await get("/auth/sessions", buyer.token, { "if-none-match": "*" })
    expect(sessions.status).toBe(200)
    expect(sessions.headers.get("etag")).toBeNull()
    expect(sessions.headers.get("cache-control")).toBe("no-store")

    const missing = await get("/requests/00000000-0000-4000-8000-000000000000", buyer.token, { "if-none-match": "*" })
    expect(missing.status).toBe(404)
  })
})
