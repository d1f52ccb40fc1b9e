import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FanoutInbound } from "../src/realtime/Fanout.js"
import { makeRedisFanout } from "../src/realtime/RedisFanout.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
// The channels every instance on this Redis listens on (RedisFanout.ts): other suites' servers hear these
// messages too, so they name only ids nobody knows, and every body is well-formed.
const SESSIONS_CHANNEL = "talab:ws:sessions"
const USERS_CHANNEL = "talab:ws:users"

const heard = { sessionsEnded: [] as Array<string>, usersChanged: [] as Array<string>, delivered: [] as Array<string> }
const inbound: FanoutInbound = {
  deliver: () => {},
  deliverToUsers: (userIds) => heard.delivered.push(...userIds),
  sessionEnded: (sessionId) => heard.sessionsEnded.push(sessionId),
  userChanged: (userId) => heard.usersChanged.push(userId),
  readsChanged: () => {},
  hearing: () => {},
  evict: () => {}
}

let scope: Scope.CloseableScope
let publisher: Redis
let replies: Redis

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  await Effect.runPromise(Scope.extend(makeRedisFanout(REDIS_URL, "talab:ws:", inbound), scope))
  publisher = new Redis(REDIS_URL)
  replies = new Redis(REDIS_URL)
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await Promise.all([publisher.quit(), replies.quit()])
})

/** Announces a session end as another instance does, and waits until every instance that heard it confirmed it. */
const announceSessionEnd = async (id: string) => {
  const replyChannel = `talab:ws:confirm:test-${randomUUID()}`
  const token = randomUUID()
  let confirmed = 0
  const onReply = (channel: string, message: string) => {
    if (channel === replyChannel && message === token) confirmed++
  }
  replies.on("message", onReply)
  await replies.subscribe(replyChannel)
  const receivers = await publisher.publish(SESSIONS_CHANNEL, `other-instance\n${id}\n${replyChannel} ${token}`)
  const deadline = Date.now() + 5_000
  while (confirmed < receivers && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  replies.off("message", onReply)
  await replies.unsubscribe(replyChannel)
  return { receivers, confirmed }
}

const eventually = async (check: () => boolean) => {
  const deadline = Date.now() + 5_000
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  return check()
}

describe("the Redis fan-out decodes the ids other instances send", () => {
  it("confirms a session end whose id is not a UUID but ends nothing; a UUID's session end reaches the hub", async () => {
    const notAnId = await announceSessionEnd("not-a-uuid")
    expect(notAnId.receivers).toBeGreaterThan(0)
    expect(notAnId.confirmed).toBe(notAnId.receivers)
    const sessionId = randomUUID()
    const anId = await announceSessionEnd(sessionId)
    expect(anId.confirmed).toBe(anId.receivers)
    // Other suites' servers on this Redis may announce their own session ends meanwhile.
    expect(heard.sessionsEnded).toContain(sessionId)
    expect(heard.sessionsEnded).not.toContain("not-a-uuid")
  })

  it("drops a user event naming an id that is not a UUID, and delivers one that names UUIDs", async () => {
    const event = { event: "request_match", data: {} }
    await publisher.publish(USERS_CHANNEL, `other-instance\n${JSON.stringify({ user_ids: ["not-a-uuid"], event })}`)
    const userId = randomUUID()
    await publisher.publish(USERS_CHANNEL, `other-instance\n${JSON.stringify({ user_ids: [userId], event })}`)
    expect(await eventually(() => heard.delivered.includes(userId))).toBe(true)
    expect(heard.delivered).not.toContain("not-a-uuid")
  })
})

describe("the sockets' keys in Redis", () => {
  it("all expire a session's lifetime after the last admission, the score counter with the sets it scored", async () => {
    const prefix = `talab-test:${randomUUID()}:ws:`
    const holder = { connectionId: 1, userId: randomUUID(), sessionId: randomUUID() }
    const keys = [
      `${prefix}sockets:s:${holder.sessionId}`,
      `${prefix}sockets:u:${holder.userId}`,
      `${prefix}sockets:seq`
    ]
    const own = await Effect.runPromise(Scope.make())
    try {
      const fanout = await Effect.runPromise(Scope.extend(makeRedisFanout(REDIS_URL, prefix, inbound), own))
      await Effect.runPromise(fanout.admit(holder, { perSession: 5, perUser: 10 }))
      const thirtyOneDays = 31 * 24 * 60 * 60
      for (const key of keys) {
        const ttl = await publisher.ttl(key)
        expect({ key, expires: ttl > thirtyOneDays - 60 && ttl <= thirtyOneDays }).toEqual({ key, expires: true })
      }
    } finally {
      await Effect.runPromise(Scope.close(own, Exit.void))
      await publisher.del(...keys)
    }
  })
})
