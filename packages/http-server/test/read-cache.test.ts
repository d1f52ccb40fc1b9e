import { describe, expect, it } from "vitest"
import { makeReadCache, REQUEST_LISTS, requestTag } from "../src/readcache/ReadCache.js"

const answer = (text: string) => ({ body: new TextEncoder().encode(text), contentType: "application/json" })
const read = (cache: ReturnType<typeof makeReadCache>, key: string, now: number, userId?: string, language = "ar") => {
  const found = cache.lookup(key, { language, userId }, now)
  return found === undefined ? undefined : new TextDecoder().decode(found.body)
}
const options = { enabled: true, maxBytes: 64 * 1024, ttlMs: 10_000 }
const A = "11111111-1111-4111-8111-111111111111"
const B = "22222222-2222-4222-8222-222222222222"

describe("read cache", () => {
  it("keeps an answer until its life ends, or the first change time makes", () => {
    const cache = makeReadCache(options)
    cache.store(
      "/x",
      { language: "ar", userId: undefined },
      answer("x"),
      { tags: [REQUEST_LISTS] },
      { generation: 0, now: 0 }
    )
    cache.store(
      "/y",
      { language: "ar", userId: undefined },
      answer("y"),
      { tags: [REQUEST_LISTS], changesAt: 500 },
      {
        generation: 0,
        now: 0
      }
    )
    expect(read(cache, "/x", 9_999)).toBe("x")
    expect(read(cache, "/x", 10_000)).toBeUndefined()
    expect(read(cache, "/y", 499)).toBe("y")
    expect(read(cache, "/y", 500)).toBeUndefined()
  })

  it("drops by tag, and does not keep what a read begun before the drop found", () => {
    const cache = makeReadCache(options)
    const started = { generation: cache.generation(), now: 0 }
    cache.store(`/r/${A}`, { language: "ar", userId: undefined }, answer("a"), { tags: [requestTag(A)] }, started)
    cache.store(`/r/${B}`, { language: "ar", userId: undefined }, answer("b"), { tags: [requestTag(B)] }, started)
    cache.drop([requestTag(A)])
    expect(read(cache, `/r/${A}`, 1)).toBeUndefined()
    expect(read(cache, `/r/${B}`, 1)).toBe("b")
    // A read that started before the drop brings back what it read: refused.
    cache.store(`/r/${A}`, { language: "ar", userId: undefined }, answer("stale"), { tags: [requestTag(A)] }, started)
    expect(read(cache, `/r/${A}`, 1)).toBeUndefined()
    cache.store(
      `/r/${A}`,
      { language: "ar", userId: undefined },
      answer("fresh"),
      { tags: [requestTag(A)] },
      {
        generation: cache.generation(),
        now: 1
      }
    )
    expect(read(cache, `/r/${A}`, 2)).toBe("fresh")
  })

  it("keeps the unmasked variant for its viewers only, and each language apart", () => {
    const cache = makeReadCache(options)
    const cacheable = { tags: [requestTag(A)], fullViewers: [A] }
    cache.store("/r", { language: "ar", userId: A }, answer("full"), cacheable, { generation: 0, now: 0 })
    expect(read(cache, "/r", 1, A)).toBe("full")
    expect(read(cache, "/r", 1, B)).toBeUndefined()
    expect(read(cache, "/r", 1, A, "en")).toBeUndefined()
    cache.store("/r", { language: "ar", userId: B }, answer("masked"), cacheable, { generation: 0, now: 0 })
    expect(read(cache, "/r", 1, B)).toBe("masked")
    expect(read(cache, "/r", 1, undefined)).toBe("masked")
    expect(read(cache, "/r", 1, A)).toBe("full")
  })

  it("stays within its bytes, the least recently read going first", () => {
    const cache = makeReadCache({ ...options, maxBytes: 16 * 1024 })
    const big = "x".repeat(600)
    for (let i = 0; i < 40; i++) {
      cache.store(
        `/k${i}`,
        { language: "ar", userId: undefined },
        answer(big),
        { tags: [REQUEST_LISTS] },
        {
          generation: 0,
          now: 0
        }
      )
      expect(read(cache, "/k0", 0)).toBe(big)
    }
    expect(cache.size().bytes).toBeLessThanOrEqual(16 * 1024)
    expect(read(cache, "/k0", 0)).toBe(big)
    expect(read(cache, "/k1", 0)).toBeUndefined()
    expect(read(cache, "/k39", 0)).toBe(big)
  })

  it("counts a route dropped and kept again once, and frees what dropped routes held first when full", () => {
    const cache = makeReadCache({ ...options, maxBytes: 16 * 1024 })
    const viewer = { language: "ar", userId: undefined }
    const keep = (key: string, text: string, tags: ReadonlyArray<string>) =>
      cache.store(key, viewer, answer(text), { tags }, { generation: cache.generation(), now: 0 })
    keep("/list", "first", [REQUEST_LISTS])
    const once = cache.size()
    for (let i = 0; i < 1_000; i++) {
      cache.drop([REQUEST_LISTS])
      expect(read(cache, "/list", 0)).toBeUndefined()
      keep("/list", "again", [REQUEST_LISTS])
      expect(read(cache, "/list", 0)).toBe("again")
    }
    expect(cache.size()).toEqual(once)
    cache.drop([REQUEST_LISTS])
    expect(cache.size().routes).toBe(0)

    // Dropped answers are freed at once; past the budget, the emptied routes go before any answer still kept.
    const big = "x".repeat(600)
    for (let i = 0; i < 8; i++) keep(`/gone${i}`, big, [requestTag(A)])
    cache.drop([requestTag(A)])
    for (let i = 0; i < 12; i++) keep(`/kept${i}`, big, [requestTag(B)])
    expect(cache.size().routes).toBe(12)
    for (let i = 0; i < 12; i++) expect(read(cache, `/kept${i}`, 0)).toBe(big)
    for (let i = 12; i < 40; i++) keep(`/kept${i}`, big, [requestTag(B)])
    expect(cache.size().bytes).toBeLessThanOrEqual(16 * 1024)
    expect(read(cache, "/kept39", 0)).toBe(big)
  })

  it("counts each route's key, so long query strings with tiny answers stay within the bytes too", () => {
    const maxBytes = 64 * 1024
    const cache = makeReadCache({ ...options, maxBytes })
    const viewer = { language: "ar", userId: undefined }
    const longKey = (i: number) => `/api/v1/requests?q=${String(i).padStart(8_000, "x")}`
    for (let i = 0; i < 200; i++) {
      cache.store(
        longKey(i),
        viewer,
        answer("[]"),
        { tags: [REQUEST_LISTS] },
        { generation: cache.generation(), now: 0 }
      )
    }
    const kept = cache.size()
    expect(kept.bytes).toBeLessThanOrEqual(maxBytes)
    expect(kept.routes * 8_000).toBeLessThanOrEqual(maxBytes)
    // Emptied by a drop, they still hold their keys until the walk frees them: still counted.
    cache.drop([REQUEST_LISTS])
    expect(cache.size()).toEqual({ routes: 0, bytes: kept.bytes - kept.routes * (2 + 256) })
  })

  it("keeps nothing while drops from other instances cannot be heard, nor when off", () => {
    const cache = makeReadCache(options)
    cache.store(
      "/x",
      { language: "ar", userId: undefined },
      answer("x"),
      { tags: [REQUEST_LISTS] },
      { generation: 0, now: 0 }
    )
    cache.trust(false)
    expect(read(cache, "/x", 1)).toBeUndefined()
    cache.store(
      "/x",
      { language: "ar", userId: undefined },
      answer("x"),
      { tags: [REQUEST_LISTS] },
      {
        generation: cache.generation(),
        now: 1
      }
    )
    expect(read(cache, "/x", 2)).toBeUndefined()
    const off = makeReadCache({ ...options, enabled: false })
    off.store(
      "/x",
      { language: "ar", userId: undefined },
      answer("x"),
      { tags: [REQUEST_LISTS] },
      { generation: 0, now: 0 }
    )
    expect(read(off, "/x", 1)).toBeUndefined()
  })
})
