import { it } from "@effect/vitest"
import type { Session, User } from "@talab/core"
import { Deferred, Effect, Fiber, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { makeSessionCache, type SessionWithUser } from "../src/auth/SessionCache.js"

const user = (id: string): User => ({
  id,
  phoneNumber: "+966512345678",
  name: "Ali",
  avatarUrl: null,
  language: "ar",
  isAdmin: false,
  createdAt: new Date(0)
})
const session = (id: string, userId: string): Session => ({
  id,
  userId,
  createdAt: new Date(0),
  expiresAt: new Date(86_400_000),
  revokedAt: null,
  lastUsedAt: new Date(0),
  device: null,
  ipPrefix: null
})
const row = (sessionId: string, userId: string): SessionWithUser => ({
  session: session(sessionId, userId),
  user: user(userId)
})

/** A loader that counts its reads and answers what `rows` holds at the time. */
const database = (rows: Map<string, SessionWithUser>) => {
  const reads = { count: 0 }
  const load = (sessionId: string) =>
    Effect.sync(() => {
      reads.count++
      return Option.fromNullable(rows.get(sessionId))
    })
  return { reads, load }
}

describe("session cache", () => {
  it.effect("reads a found session once while fresh, and again after the TTL", () =>
    Effect.gen(function* () {
      const rows = new Map([["s1", row("s1", "u1")]])
      const { reads, load } = database(rows)
      const cache = makeSessionCache({ ttlMs: 1_000 })
      expect(yield* cache.find("s1", load("s1"))).toEqual(Option.some(rows.get("s1")))
      expect(yield* cache.find("s1", load("s1"))).toEqual(Option.some(rows.get("s1")))
      expect(reads.count).toBe(1)
      yield* TestClock.adjust("999 millis")
      yield* cache.find("s1", load("s1"))
      expect(reads.count).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* cache.find("s1", load("s1"))
      expect(reads.count).toBe(2)
    })
  )

  it.effect("keeps no unknown session: each check of it reads the database", () =>
    Effect.gen(function* () {
      const rows = new Map<string, SessionWithUser>()
      const { reads, load } = database(rows)
      const cache = makeSessionCache()
      expect(yield* cache.find("nope", load("nope"))).toEqual(Option.none())
      expect(yield* cache.find("nope", load("nope"))).toEqual(Option.none())
      expect(reads.count).toBe(2)
      expect(cache.size()).toBe(0)
      rows.set("nope", row("nope", "u1"))
      expect(Option.isSome(yield* cache.find("nope", load("nope")))).toBe(true)
    })
  )

  it.effect("forgets an ended session and every session of a changed user, and no other", () =>
    Effect.gen(function* () {
      const rows = new Map([
        ["a1", row("a1", "ua")],
        ["a2", row("a2", "ua")],
        ["b1", row("b1", "ub")]
      ])
      const { reads, load } = database(rows)
      const cache = makeSessionCache()
      for (const id of ["a1", "a2", "b1"]) yield* cache.find(id, load(id))
      expect(reads.count).toBe(3)

      const revoked = { ...rows.get("b1")!, session: { ...rows.get("b1")!.session, revokedAt: new Date(5) } }
      rows.set("b1", revoked)
      cache.forgetSession("b1")
      expect(yield* cache.find("b1", load("b1"))).toEqual(Option.some(revoked))
      expect(reads.count).toBe(4)

      const renamed = (id: string) => ({ ...rows.get(id)!, user: { ...rows.get(id)!.user, name: "Sara" } })
      rows.set("a1", renamed("a1"))
      rows.set("a2", renamed("a2"))
      cache.forgetUser("ua")
      expect(Option.getOrThrow(yield* cache.find("a1", load("a1"))).user.name).toBe("Sara")
      expect(Option.getOrThrow(yield* cache.find("a2", load("a2"))).user.name).toBe("Sara")
      yield* cache.find("b1", load("b1"))
      expect(reads.count).toBe(6)
    })
  )

  it.effect("does not keep a row read before a change that came in while it was being read", () =>
    Effect.gen(function* () {
      const rows = new Map([["s1", row("s1", "u1")]])
      const cache = makeSessionCache()
      const reading = yield* Deferred.make<void>()
      const proceed = yield* Deferred.make<void>()
      let reads = 0
      const slowLoad = Effect.gen(function* () {
        reads++
        const before = Option.fromNullable(rows.get("s1"))
        yield* Deferred.succeed(reading, undefined)
        yield* Deferred.await(proceed)
        return before
      })
      const fiber = yield* Effect.fork(cache.find("s1", slowLoad))
      yield* Deferred.await(reading)
      // The logout commits and is announced while the stale row is on its way.
      rows.set("s1", { ...rows.get("s1")!, session: { ...rows.get("s1")!.session, revokedAt: new Date(1) } })
      cache.forgetSession("s1")
      yield* Deferred.succeed(proceed, undefined)
      expect(Option.getOrThrow(yield* Fiber.join(fiber)).session.revokedAt).toBeNull()
      expect(cache.size()).toBe(0)
      expect(
        Option.getOrThrow(
          yield* cache.find(
            "s1",
            Effect.sync(() => Option.fromNullable(rows.get("s1")))
          )
        ).session.revokedAt
      ).toEqual(new Date(1))
      expect(reads).toBe(1)
    })
  )

  it.effect("keeps nothing while changes cannot be heard, and starts empty when they can again", () =>
    Effect.gen(function* () {
      const rows = new Map([["s1", row("s1", "u1")]])
      const { reads, load } = database(rows)
      const cache = makeSessionCache()
      yield* cache.find("s1", load("s1"))
      cache.trust(false)
      expect(cache.size()).toBe(0)
      yield* cache.find("s1", load("s1"))
      yield* cache.find("s1", load("s1"))
      expect(reads.count).toBe(3)
      cache.trust(true)
      yield* cache.find("s1", load("s1"))
      yield* cache.find("s1", load("s1"))
      expect(reads.count).toBe(4)
    })
  )

  it.effect("records a session's new last use, and keeps at most its bound, the oldest going first", () =>
    Effect.gen(function* () {
      const rows = new Map(["s1", "s2", "s3"].map((id) => [id, row(id, `u-${id}`)] as const))
      const { reads, load } = database(rows)
      const cache = makeSessionCache({ maxEntries: 2 })
      yield* cache.find("s1", load("s1"))
      cache.touched("s1", new Date(60_000))
      expect(Option.getOrThrow(yield* cache.find("s1", load("s1"))).session.lastUsedAt).toEqual(new Date(60_000))
      yield* cache.find("s2", load("s2"))
      yield* cache.find("s3", load("s3"))
      expect(cache.size()).toBe(2)
      expect(reads.count).toBe(3)
      yield* cache.find("s3", load("s3"))
      yield* cache.find("s2", load("s2"))
      expect(reads.count).toBe(3)
      yield* cache.find("s1", load("s1"))
      expect(reads.count).toBe(4)
    })
  )
})
