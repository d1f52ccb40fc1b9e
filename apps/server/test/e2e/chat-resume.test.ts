import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type ChatMessage,
  createTalabClient,
  type RealtimeClient,
  type TalabClient,
  type WebSocketConstructor
} from "@talab/client-sdk"
import type { TestServer } from "@talab/testkit"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import WebSocket from "ws"
import {
  type ChildServer,
  freePort,
  killStartedServers,
  lastCodeInOutbox,
  migratedDataDir,
  startServer,
  waitUntilLive
} from "../support/child-server.js"
import { chatScene, Marketplace } from "../support/fixtures.js"
import { type Backend, bothBackends, client, newPhone, signInOverHttp } from "../support/harness.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { seqRange } from "../support/seq.js"

/*
 * The real server process killed (SIGKILL) under a client that is sending through the SDK's realtime client,
 * then started again on the same database: every message the sender saw acknowledged reaches the receiving
 * SDK client exactly once, in order.
 */

const temporary: Array<string> = []
afterEach(killStartedServers)
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true })
})

const MESSAGES = 24
const KILL_AFTER = 8

/** The child server's settings: a fixed JWT secret, so tokens issued before the kill still verify after it. */
const serverVariables = async (backend: Backend, adminPhone: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), "talab-resume-"))
  temporary.push(dataDir)
  const database = backend === "postgres" ? await createPostgresDatabase() : undefined
  const port = await freePort()
  return {
    port,
    outbox: join(dataDir, "sms.jsonl"),
    database,
    variables: {
      PORT: String(port),
      // On the embedded database, a copy of one already migrated (the outbox stays in dataDir).
      DATA_DIR: database ? dataDir : migratedDataDir(),
      ...(database ? { DATABASE_URL: database.url } : {}),
      JWT_SECRET: "a-secret-for-the-restart-test-of-32-bytes",
      SMS_OUTBOX_FILE: join(dataDir, "sms.jsonl"),
      ADMIN_PHONE_NUMBERS: adminPhone,
      RATE_LIMIT_AUTH_PER_MINUTE: "1000",
      RATE_LIMIT_API_PER_MINUTE: "10000",
      RATE_LIMIT_WS_MESSAGES_PER_MINUTE: "1000",
      RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE: "1000"
    }
  }
}

/** An SDK client of the child server signed in as `phone`, with the code read from the SMS outbox. */
const sdkClient = async (baseUrl: string, outbox: string, phone: string): Promise<TalabClient> => {
  const talab = createTalabClient({ baseUrl, language: "en" })
  await talab.auth.requestOtp(phone)
  await talab.auth.signIn({ phoneNumber: phone, otpCode: lastCodeInOutbox(outbox, phone) })
  return talab
}

const eventually = async (predicate: () => boolean, timeoutMs: number, what: string) => {
  const started = Date.now()
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe.each(bothBackends)("a server killed under a sending SDK client, on %s", (backend) => {
  it("delivers every acknowledged message exactly once, in order, after the restart", async () => {
    const adminPhone = newPhone()
    const setup = await serverVariables(backend, adminPhone)
    const opened: Array<RealtimeClient> = []
    try {
      const start = async (): Promise<ChildServer> => {
        const server = startServer(setup.variables)
        await waitUntilLive(setup.port, server)
        return server
      }
      let server = await start()
      const baseUrl = `http://127.0.0.1:${setup.port}`
      // The marketplace fixtures drive the child through REST, signing in with the codes it "texted" to its outbox.
      const child = {
        apiUrl: `${baseUrl}/api/v1`,
        sms: { lastCode: (phone: string) => lastCodeInOutbox(setup.outbox, phone) }
      } as unknown as TestServer
      const scene = await chatScene(new Marketplace(child, client(child), adminPhone, signInOverHttp))

      const realtimeOf = async (phone: string) => {
        const live = (await sdkClient(baseUrl, setup.outbox, phone)).realtime({
          WebSocket: WebSocket as unknown as WebSocketConstructor,
          reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
          sendTimeoutMs: 120_000
        })
        opened.push(live)
        await live.connect()
        return live
      }
      const sender = await realtimeOf(scene.buyer.phone)
      const receiver = await realtimeOf(scene.seller.phone)
      const received: Array<ChatMessage> = []
      receiver.on("message", (message) => received.push(message))
      await receiver.subscribe(scene.conversationId)

      const acked: Array<ChatMessage> = []
      const sending = (async () => {
        for (let i = 1; i <= MESSAGES; i++) acked.push(await sender.send(scene.conversationId, `message ${i}`))
      })()
      await eventually(() => acked.length >= KILL_AFTER, 30_000, "the first acknowledgements")
      server.child.kill("SIGKILL")
      expect(await server.exited).toEqual({ code: null, signal: "SIGKILL" })
      await eventually(() => sender.state === "reconnecting", 10_000, "the sender to notice")
      server = await start()
      await sending

      await eventually(() => received.length >= MESSAGES, 60_000, "the receiver to get every message")
      await new Promise((resolve) => setTimeout(resolve, 200)) // a late duplicate would show here
      expect(acked.map((message) => message.message_text)).toEqual(seqRange(1, MESSAGES).map((i) => `message ${i}`))
      expect(acked.map((message) => message.seq)).toEqual(seqRange(1, MESSAGES))
      expect(received.map((message) => message.id)).toEqual(acked.map((message) => message.id))
      expect(received.map((message) => message.seq)).toEqual(seqRange(1, MESSAGES))
    } finally {
      for (const live of opened) live.dispose()
      killStartedServers()
      await setup.database?.drop()
    }
  }, 240_000)
})
