/*
 * WebSocket latency on PostgreSQL: 200 connected users (100 buyer/seller pairs, each pair in its own
 * conversation) exchanging messages; for every message, the time from the send of its frame to its receipt
 * by the other party's socket, and to the sender's ack, p50/p95/p99. Run first on one instance, then (when
 * Redis answers) on two instances sharing Redis and the database, buyers on one and sellers on the other, so
 * every delivery crosses instances.
 *
 *   npx tsx apps/server/bench/scenarios/websocket.ts     (from the repository root)
 *   BENCH_SECONDS=10 BENCH_INTERVAL_MS=2000 …            each user sends one message per interval
 *   BENCH_WARMUP_SECONDS=3 BENCH_PAIRS=100 …             unmeasured warm-up first; number of conversations
 *   BENCH_BUSY_PAIRS=50 BENCH_BUSY_INTERVAL_MS=200 …     the busy one-instance phase (500 messages a second)
 *   REDIS_URL=redis://127.0.0.1:6379 …                   the Redis of the second phase (BENCH_REDIS=0 skips it)
 *
 * Real servers (testkit's startTestServer) on a fresh database with high rate limits. The 200 sockets live in
 * a worker thread so they do not share the server's event loop; sender and receiver read one clock there.
 */
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { connect } from "node:net"
import { startTestServer, type TestServer } from "@talab/testkit"
import {
  approvedSeller,
  call,
  formatPercentiles,
  percentiles,
  runScenario,
  runWorker,
  signIn,
  unlimitedRateLimits,
  withBenchDatabase,
  withProfile
} from "../setup.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
/** Sent but not measured first: JIT, the database pool growing to its size. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 2_000)
/** The busy phase on one instance: this many pairs, each user a message every this many ms (500 msg/s). */
const BUSY_PAIRS = Number(process.env.BENCH_BUSY_PAIRS ?? 50)
const BUSY_INTERVAL_MS = Number(process.env.BENCH_BUSY_INTERVAL_MS ?? 200)
const PAIRS = Number(process.env.BENCH_PAIRS ?? 100)
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

interface SocketUser {
  readonly wsUrl: string
  readonly token: string
  readonly userId: string
  readonly conversationId: string
}

interface LoadResult {
  readonly receipt: Array<number>
  readonly ack: Array<number>
  readonly sent: number
  readonly errors: number
  readonly sample?: string
  readonly connectMs: number
}

/** Connects every user, subscribes each to its conversation, then sends on a timer. Plain JS: it runs in a worker. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const WebSocket = require(workerData.wsPath)
const { users, durationMs, warmupMs, intervalMs, runId } = workerData
const receipt = []
const ack = []
const pending = new Map()
let sent = 0
let errors = 0
let sample
let measureFrom = Infinity
// The send time travels in the text spelled in letters: digits would be masked (contact masking) for the recipient.
const LETTERS = "abcdefghij"
const spell = (ms) => String(Math.round(ms * 1000)).replace(/[0-9]/g, (d) => LETTERS[d])
const unspell = (word) => Number(word.replace(/[a-j]/g, (c) => LETTERS.indexOf(c))) / 1000
const open = (user) => new Promise((resolve, reject) => {
  const ws = new WebSocket(user.wsUrl)
  ws.on("open", () => ws.send(JSON.stringify({ type: "auth", token: user.token })))
  ws.on("error", reject)
  ws.on("message", (raw) => {
    const frame = JSON.parse(raw.toString())
    if (frame.type === "auth_ok") ws.send(JSON.stringify({ type: "subscribe", channel: "conversation." + user.conversationId }))
    else if (frame.type === "subscribed") resolve(ws)
    else if (frame.type === "ack") {
      const at = pending.get(frame.client_id)
      if (at !== undefined && at >= measureFrom) ack.push(performance.now() - at)
      pending.delete(frame.client_id)
    } else if (frame.type === "message") {
      const at = unspell(frame.data.message_text.split(" ")[0])
      if (frame.data.sender_id !== user.userId && at >= measureFrom) receipt.push(performance.now() - at)
    } else if (frame.type === "error") {
      errors++
      sample ??= raw.toString()
    }
  })
})
const main = async () => {
  const t0 = performance.now()
  const sockets = await Promise.all(users.map(open))
  const connectMs = performance.now() - t0
  measureFrom = performance.now() + warmupMs
  const deadline = measureFrom + durationMs
  await Promise.all(sockets.map((ws, i) => new Promise((resolve) => {
    const user = users[i]
    let n = 0
    const tick = () => {
      if (performance.now() >= deadline) return resolve()
      if (performance.now() >= measureFrom) sent++
      // Unique per run: a client_id already used by the sender is answered with its first message, not stored again.
      const clientId = runId + ":" + user.userId + ":" + n++
      const now = performance.now()
      pending.set(clientId, now)
      ws.send(JSON.stringify({ type: "message", conversation_id: user.conversationId, message_text: spell(now) + " bench message", client_id: clientId }))
      setTimeout(tick, intervalMs)
    }
    setTimeout(tick, Math.random() * intervalMs)
  })))
  await new Promise((resolve) => setTimeout(resolve, 2000))
  for (const ws of sockets) ws.close()
  parentPort.postMessage({ receipt, ack, sent, errors, sample, connectMs })
}
main().catch((error) => { throw error })
`

const runLoad = (users: ReadonlyArray<SocketUser>, intervalMs = INTERVAL_MS) =>
  runWorker<LoadResult>(workerSource, {
    users,
    durationMs: SECONDS * 1_000,
    warmupMs: WARMUP_SECONDS * 1_000,
    intervalMs,
    wsPath: createRequire(import.meta.url).resolve("ws"),
    runId: randomUUID()
  })

const phone = (n: number) => `+9665${String(83_000_000 + n).padStart(8, "0")}`

/** 100 buyers with a request each and 100 approved sellers with an offer on it: 100 conversations. */
const seedPairs = async (server: TestServer, adminPhone: string) => {
  const admin = await signIn(server, adminPhone)
  const pairs: Array<{
    buyer: { token: string; userId: string }
    seller: { token: string; userId: string }
    conversationId: string
  }> = []
  for (let p = 1; p <= PAIRS; p++) {
    const buyer = await signIn(server, phone(p))
    const seller = await approvedSeller(server, admin.token, phone(1_000 + p), `WS Shop ${p}`)
    const request = await call(server, "POST", "/requests", buyer.token, {
      category: "phone",
      budget_min: 1000,
      budget_max: 2000,
      location_district: "Olaya"
    })
    const offer = await call(server, "POST", "/offers", seller.token, {
      request_id: request.id,
      price: 1500,
      availability: "Today"
    })
    const list = await call(server, "GET", "/conversations/my", buyer.token)
    const conversation = list.conversations.find((c: any) => c.offer_id === offer.id)
    pairs.push({ buyer, seller, conversationId: conversation.id })
  }
  return pairs
}

/**
 * The targets: send → receipt p95 under 100 ms (the spec) with 50 pairs offering 500 messages a second to one
 * instance, and under 10 ms across two instances through Redis at 200 users and 100 messages a second.
 */
const report = (name: string, result: LoadResult, targetP95Ms: number, sockets = PAIRS * 2) => {
  const line = (label: string, values: Array<number>) =>
    console.log(`  ${label}: n ${values.length}  ${formatPercentiles(percentiles(values))}`)
  console.log(`\n${name}`)
  console.log(
    `  ${sockets} sockets connected and subscribed in ${result.connectMs.toFixed(1)} ms; after ${WARMUP_SECONDS} s of warm-up, ${result.sent} messages sent in ${SECONDS} s (${(result.sent / SECONDS).toFixed(0)}/s), errors ${result.errors}${result.sample ? ` e.g. ${result.sample}` : ""}`
  )
  line("send → receipt by the other party", result.receipt)
  line("send → ack to the sender", result.ack)
  const p95 = percentiles(result.receipt).p95
  const verdict = result.receipt.length === 0 ? "NO RECEIPTS" : p95 < targetP95Ms ? "met" : "MISSED"
  console.log(`  target: receipt p95 under ${targetP95Ms} ms; measured ${p95.toFixed(1)} ms (${verdict})`)
}

/** Whether Redis answers PING (a plain RESP exchange, so the bench needs no Redis client). */
const redisAnswers = () =>
  new Promise<boolean>((resolve) => {
    if (process.env.BENCH_REDIS === "0") return resolve(false)
    const url = new URL(REDIS_URL)
    const socket = connect({ host: url.hostname, port: Number(url.port || 6379) })
    const done = (answer: boolean) => {
      socket.destroy()
      resolve(answer)
    }
    socket.setTimeout(1_000, () => done(false))
    socket.once("error", () => done(false))
    socket.once("connect", () => socket.write("PING\r\n"))
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")))
  })

const main = () =>
  withBenchDatabase("talab_ws_bench", async (database) => {
    const adminPhone = phone(0)
    const settings = {
      rateLimits: unlimitedRateLimits,
      adminPhoneNumbers: [adminPhone],
      logLevel: "error" as const,
      // BENCH_MESSAGE_BATCH=off stores each message in a transaction of its own (MESSAGE_BATCH=off).
      ...(process.env.BENCH_MESSAGE_BATCH === "off" ? { messageBatch: false } : {})
    }
    const a = await startTestServer({ databaseUrl: database.url, settings })
    let pair: [TestServer, TestServer] | undefined
    try {
      const pairs = await seedPairs(a, adminPhone)
      console.log(`${PAIRS} conversations (${PAIRS * 2} users); each user sends one message every ${INTERVAL_MS} ms`)
      const usersOn = (buyers: TestServer, sellers: TestServer): Array<SocketUser> =>
        pairs.flatMap((p) => [
          { wsUrl: buyers.wsUrl, token: p.buyer.token, userId: p.buyer.userId, conversationId: p.conversationId },
          { wsUrl: sellers.wsUrl, token: p.seller.token, userId: p.seller.userId, conversationId: p.conversationId }
        ])
      report(
        "One instance, fan-out in process",
        await withProfile("websocket-one-instance", () => runLoad(usersOn(a, a))),
        5
      )
      const busy = usersOn(a, a).slice(0, BUSY_PAIRS * 2)
      report(
        `One instance, busy: ${BUSY_PAIRS} pairs, each user a message every ${BUSY_INTERVAL_MS} ms (${((BUSY_PAIRS * 2 * 1000) / BUSY_INTERVAL_MS).toFixed(0)} msg/s offered)`,
        await withProfile("websocket-one-instance-busy", () => runLoad(busy, BUSY_INTERVAL_MS)),
        100,
        busy.length
      )
      await a.close()

      if (await redisAnswers()) {
        const clustered = { databaseUrl: database.url, redisUrl: REDIS_URL, settings }
        pair = [await startTestServer(clustered), await startTestServer(clustered)]
        report(
          "Two instances sharing Redis: buyers on one, sellers on the other",
          await runLoad(usersOn(pair[0], pair[1])),
          10
        )
      } else {
        console.log("\n(Redis not reachable: the two-instance phase is skipped)")
      }
    } finally {
      await a.close().catch(() => undefined)
      for (const server of pair ?? []) await server.close()
    }
  })

runScenario(main)
