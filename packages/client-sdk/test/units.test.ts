import { describe, expect, it, vi } from "vitest"
import { TalabApiError } from "../src/api/errors.js"
import { Session } from "../src/auth/Session.js"
import { memoryTokenStore, webStorageTokenStore } from "../src/auth/TokenStore.js"
import { backoffDelay } from "../src/realtime/backoff.js"
import type { ChatMessage } from "../src/realtime/frames.js"
import { parseServerFrame } from "../src/realtime/frames.js"
import { MessageLog } from "../src/realtime/MessageLog.js"
import { isRealtimeError, RealtimeError } from "../src/realtime/RealtimeError.js"
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

describe("webStorageTokenStore", () => {
  const tokens = { accessToken: "access-1", refreshToken: "refresh-1" }
  /** A Map behind the Web Storage methods, as localStorage behaves. */
  const storage = () => {
    const entries = new Map<string, string>()
    return {
      entries,
      getItem: (key: string) => entries.get(key) ?? null,
      setItem: (key: string, value: string) => void entries.set(key, value),
      removeItem: (key: string) => void entries.delete(key)
    }
  }

  it("keeps the tokens under its key for a later client (a reload), and forgets them on clear", async () => {
    const web = storage()
    await webStorageTokenStore(web).set(tokens)
    expect(JSON.parse(web.entries.get("talab.session")!)).toEqual(tokens)
    const afterReload = webStorageTokenStore(web)
    expect(await afterReload.get()).toEqual(tokens)
    await afterReload.clear()
    expect(web.entries.size).toBe(0)
    expect(await webStorageTokenStore(web).get()).toBeNull()
  })

  it("uses the key it is given, so two apps on one origin keep two sessions", async () => {
    const web = storage()
    await webStorageTokenStore(web, "buyer").set(tokens)
    expect(await webStorageTokenStore(web, "seller").get()).toBeNull()
    expect(await webStorageTokenStore(web, "buyer").get()).toEqual(tokens)
  })

  it.each([
    ["not JSON", "{oops"],
    ["JSON of another shape", JSON.stringify({ accessToken: "a" })],
    ["null", "null"]
  ])("reads an entry that is %s as signed out and removes it", async (_, stored) => {
    const web = storage()
    web.entries.set("talab.session", stored)
    expect(await webStorageTokenStore(web).get()).toBeNull()
    expect(web.entries.has("talab.session")).toBe(false)
  })

  it("signs a session in and out through a client's Session", async () => {
    const web = storage()
    const session = new Session(webStorageTokenStore(web), async () => ({ accessToken: "x" }), new Emitter<any>())
    await session.signIn(tokens)
    expect(
      await new Session(webStorageTokenStore(web), async () => ({ accessToken: "x" }), new Emitter<any>()).tokens()
    ).toEqual(tokens)
    await session.signOut("signed_out")
    expect(web.entries.size).toBe(0)
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
  const message = (seq: number, conversationId = conversation): ChatMessage => ({
    id: `m${seq}`,
    conversation_id: conversationId,
    seq,
    sender_id: "s",
    kind: "text",
    message_text: `text ${seq}`,
    masked: false,
    attachments: [],
    created_at: new Date(Date.UTC(2025, 0, 1, 10, 0, seq)).toISOString()
  })
  const seqs = (messages: ReadonlyArray<ChatMessage>) => messages.map((m) => m.seq)

  it("releases each message once, in seq order: one ahead of a missing one waits until the gap fills", () => {
    const log = new MessageLog()
    log.startAfter(conversation, 2)
    expect(log.lastSeq(conversation)).toBe(2)
    expect(seqs(log.accept(message(2)))).toEqual([]) // the app has it
    expect(seqs(log.accept(message(4)))).toEqual([])
    expect(seqs(log.accept(message(5)))).toEqual([])
    expect(log.hasGap(conversation)).toBe(true)
    expect(seqs(log.accept(message(4)))).toEqual([]) // waiting already
    expect(seqs(log.accept(message(3)))).toEqual([3, 4, 5])
    expect(log.hasGap(conversation)).toBe(false)
    expect(log.lastSeq(conversation)).toBe(5)
    expect(seqs(log.accept(message(3)))).toEqual([])
    expect(seqs(log.accept(message(6)))).toEqual([6])
  })

  it("starts an unknown conversation at its first message; each conversation has its own order", () => {
    const log = new MessageLog()
    expect(log.lastSeq(conversation)).toBeUndefined()
    expect(seqs(log.accept(message(7)))).toEqual([7])
    expect(seqs(log.accept(message(1, "c2")))).toEqual([1])
    expect(log.lastSeq(conversation)).toBe(7)
    expect(log.lastSeq("c2")).toBe(1)
  })

  it("moves only forward: an older position changes nothing, a newer one drops what it covers and releases what follows", () => {
    const log = new MessageLog()
    log.startAfter(conversation, 5)
    expect(log.startAfter(conversation, 3)).toEqual([])
    expect(log.lastSeq(conversation)).toBe(5)
    log.accept(message(7))
    log.accept(message(9))
    expect(seqs(log.startAfter(conversation, 8))).toEqual([9])
    expect(log.hasGap(conversation)).toBe(false)
  })
})

describe("isRealtimeError", () => {
  it("tells a RealtimeError by class or by name, and by code when codes are given", () => {
    const timeout = new RealtimeError("TIMEOUT", "no reply")
    expect(isRealtimeError(timeout)).toBe(true)
    expect(isRealtimeError(timeout, "TIMEOUT", "CLOSED")).toBe(true)
    expect(isRealtimeError(timeout, "FORBIDDEN")).toBe(false)
    const fromOtherBuild = Object.assign(new Error("refused"), { name: "RealtimeError", code: "FORBIDDEN" })
    expect(isRealtimeError(fromOtherBuild, "FORBIDDEN")).toBe(true)
    expect(isRealtimeError(new TalabApiError({ code: "FORBIDDEN", status: 403, message: "no" }))).toBe(false)
    expect(isRealtimeError({ name: "RealtimeError", code: "TIMEOUT" })).toBe(false)
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
