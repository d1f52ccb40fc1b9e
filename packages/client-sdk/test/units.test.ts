import { describe, expect, it, vi } from "vitest"
import { TalabApiError } from "../src/api/errors.js"
import { Session } from "../src/auth/Session.js"
import { memoryTokenStore } from "../src/auth/TokenStore.js"
import { backoffDelay } from "../src/realtime/backoff.js"
import type { ChatMessage } from "../src/realtime/frames.js"
import { parseServerFrame } from "../src/realtime/frames.js"
import { MessageLog } from "../src/realtime/MessageLog.js"
import type { MessagePage } from "../src/realtime/RealtimeClient.js"
import { resolveWebSocket } from "../src/realtime/WebSocketLike.js"
import { Emitter } from "../src/util/Emitter.js"
import { restUrlOf, webSocketUrlOf } from "../src/util/urls.js"
import { randomId } from "../src/util/uuid.js"

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("addresses", () => {
  it("puts REST under /api/v1 and the WebSocket at /ws, with the scheme of the origin", () => {
    expect(restUrlOf("https://api.talab.sa/")).toBe("https://api.talab.sa/api/v1")
    expect(webSocketUrlOf("https://api.talab.sa")).toBe("wss://api.talab.sa/ws")
    expect(webSocketUrlOf("http://127.0.0.1:3000/talab/")).toBe("ws://127.0.0.1:3000/talab/ws")
  })
})

describe("randomId", () => {
  it("is a UUID v4 with crypto.randomUUID and without it (React Native)", () => {
    expect(randomId()).toMatch(UUID_V4)
    const crypto = globalThis.crypto
    vi.stubGlobal("crypto", undefined)
    try {
      const ids = new Set(Array.from({ length: 100 }, () => randomId()))
      expect([...ids].every((id) => UUID_V4.test(id))).toBe(true)
      expect(ids.size).toBe(100)
    } finally {
      vi.stubGlobal("crypto", crypto)
    }
  })
})

describe("backoffDelay", () => {
  it("grows exponentially up to the cap, jittered within the upper half", () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1_000, factor: 2 }
    expect(backoffDelay(0, options, () => 0)).toBe(50)
    expect(backoffDelay(0, options, () => 1)).toBe(100)
    expect(backoffDelay(3, options, () => 0)).toBe(400)
    expect(backoffDelay(3, options, () => 1)).toBe(800)
    expect(backoffDelay(10, options, () => 1)).toBe(1_000)
    expect(backoffDelay(10, options, () => 0)).toBe(500)
  })
})

describe("Session", () => {
  const tokens = { accessToken: "access-1", refreshToken: "refresh-1" }
  const events = () => new Emitter<any>()

  it("refreshes once for every caller holding the same expired token", async () => {
    let calls = 0
    const session = new Session(
      memoryTokenStore(tokens),
      async () => {
        calls += 1
        await new Promise((resolve) => setTimeout(resolve, 10))
        return { accessToken: `access-${calls + 1}` }
      },
      events()
    )
    const renewed = await Promise.all([session.renew("access-1"), session.renew("access-1"), session.renew("access-1")])
    expect(renewed).toEqual(["access-2", "access-2", "access-2"])
    expect(calls).toBe(1)
    // A caller that failed with an older token gets the current one, with no new refresh.
    expect(await session.renew("access-0")).toBe("access-2")
    expect(calls).toBe(1)
  })

  it("signs out when the refresh token is refused, keeps the session when the server cannot be reached", async () => {
    const emitter = events()
    const signedOut: Array<unknown> = []
    emitter.on("signedOut", (e: unknown) => signedOut.push(e))
    let answer: Error = new Error("offline")
    const store = memoryTokenStore(tokens)
    const session = new Session(
      store,
      async () => {
        throw answer
      },
      emitter
    )
    await expect(session.renew("access-1")).rejects.toThrow("offline")
    expect(await store.get()).toEqual(tokens)

    answer = new TalabApiError({ code: "INVALID_REFRESH_TOKEN", status: 401, message: "refused" })
    expect(await session.renew("access-1")).toBeUndefined()
    expect(await store.get()).toBeNull()
    expect(signedOut).toEqual([{ reason: "session_expired" }])
  })

  it("a refresh that finishes after a sign-out does not bring the old session back", async () => {
    let finish!: (value: { accessToken: string }) => void
    const store = memoryTokenStore(tokens)
    const session = new Session(store, () => new Promise((resolve) => (finish = resolve)), events())
    const renewing = session.renew("access-1")
    await new Promise((resolve) => setTimeout(resolve, 0))
    await session.signOut("signed_out")
    finish({ accessToken: "access-2" })
    expect(await renewing).toBeUndefined()
    expect(await store.get()).toBeNull()
  })
})

describe("Emitter", () => {
  it("a listener that throws does not stop the others", async () => {
    vi.useFakeTimers()
    try {
      const emitter = new Emitter<{ ping: number }>()
      const received: Array<number> = []
      emitter.on("ping", () => {
        throw new Error("listener bug")
      })
      const off = emitter.on("ping", (n) => received.push(n))
      emitter.emit("ping", 1)
      off()
      emitter.emit("ping", 2)
      expect(received).toEqual([1])
      expect(() => vi.runAllTimers()).toThrow("listener bug")
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("parseServerFrame", () => {
  it("reads the protocol's frames and ignores anything else", () => {
    expect(parseServerFrame('{"type":"auth_ok","user_id":"u"}')).toEqual({ type: "auth_ok", user_id: "u" })
    expect(parseServerFrame('{"type":"surprise"}')).toBeUndefined()
    expect(parseServerFrame("not json")).toBeUndefined()
    expect(parseServerFrame("null")).toBeUndefined()
  })
})

describe("MessageLog", () => {
  const conversation = "c1"
  const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 10, 0, second)).toISOString()
  const message = (n: number): ChatMessage => ({
    id: `m${n}`,
    conversation_id: conversation,
    sender_id: "s",
    message_text: `text ${n}`,
    created_at: at(n)
  })
  /** GET /conversations/{id}/messages over a list of messages, newest first, `before` exclusive. */
  const pagesOf = (all: Array<ChatMessage>) => {
    const requests: Array<string | undefined> = []
    const fetchPage = async (before: string | undefined, limit: number): Promise<MessagePage> => {
      requests.push(before)
      const older = [...all]
        .reverse()
        .filter((m) => before === undefined || Date.parse(m.created_at) < Date.parse(before))
      return {
        messages: older.slice(0, limit).map(({ conversation_id: _, ...rest }) => rest),
        has_more: older.length > limit
      }
    }
    return { fetchPage, requests }
  }

  it("emits each message once", () => {
    const log = new MessageLog()
    expect(log.record(message(1))).toBe(true)
    expect(log.record(message(1))).toBe(false)
  })

  it("fetches what came after the last message seen, across pages, oldest first", async () => {
    const log = new MessageLog()
    log.record(message(2))
    const { fetchPage, requests } = pagesOf([1, 2, 3, 4, 5, 6].map(message))
    const { messages, baseline } = await log.missedSince(conversation, fetchPage, 2)
    expect(baseline).toBe(false)
    expect(messages.map((m) => m.id)).toEqual(["m3", "m4", "m5", "m6"])
    expect(messages.every((m) => m.conversation_id === conversation)).toBe(true)
    expect(requests).toEqual([undefined, at(5), at(3)])
  })

  it("with nothing seen, only notes where the conversation stands, and catches up from there next time", async () => {
    const log = new MessageLog()
    const all = [1, 2].map(message)
    const first = await log.missedSince(conversation, pagesOf(all).fetchPage, 50)
    expect(first).toEqual({ messages: [], baseline: true })
    all.push(message(3))
    const next = await log.missedSince(conversation, pagesOf(all).fetchPage, 50)
    expect(next.messages.map((m) => m.id)).toEqual(["m3"])
  })

  it("an empty conversation at the baseline: everything after is missed", async () => {
    const log = new MessageLog()
    const all: Array<ChatMessage> = []
    await log.missedSince(conversation, pagesOf(all).fetchPage, 50)
    all.push(message(1), message(2))
    const next = await log.missedSince(conversation, pagesOf(all).fetchPage, 50)
    expect(next.messages.map((m) => m.id)).toEqual(["m1", "m2"])
  })

  it("holds live messages during a catch-up and releases them oldest first", () => {
    const log = new MessageLog()
    log.holdLive(conversation)
    expect(log.isHeld(conversation)).toBe(true)
    log.hold(message(5))
    log.hold(message(4))
    expect(log.releaseLive(conversation).map((m) => m.id)).toEqual(["m4", "m5"])
    expect(log.isHeld(conversation)).toBe(false)
  })
})

describe("resolveWebSocket", () => {
  it("uses the platform's WebSocket when there is one, else loads ws (Node 20)", async () => {
    expect((globalThis as { WebSocket?: unknown }).WebSocket).toBeUndefined()
    const { WebSocket: NodeWebSocket } = await import("ws")
    expect(await resolveWebSocket()).toBe(NodeWebSocket)
    class PlatformWebSocket {}
    vi.stubGlobal("WebSocket", PlatformWebSocket)
    try {
      expect(await resolveWebSocket()).toBe(PlatformWebSocket)
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
