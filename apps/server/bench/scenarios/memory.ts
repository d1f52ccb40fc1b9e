/*
 * Memory of one instance on PostgreSQL: the RSS of the production server (src/main.ts built by tsup, NODE_ENV=production, logs
 * at error) at rest, then with 5,000 idle authenticated WebSocket sockets, and what one socket costs: the
 * difference over the number of sockets, after a full GC each time (the server runs with --expose-gc and
 * answers `SIGUSR2` by collecting; it is asked to and given a moment before each reading).
 *
 *   npx tsx apps/server/bench/scenarios/memory.ts     (from the repository root)
 *   BENCH_SOCKETS=5000 …                              sockets to open (10 per session, 50 sessions per user cap)
 *
 * The server is a child process so that its RSS is its own: the users and their sessions are written in SQL
 * and the access tokens signed here with the server's JWT_SECRET, so no sign-in traffic comes first. The
 * sockets live in a worker thread of this process. Targets: at most 20 KB per socket, RSS at rest
 * under 150 MB.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { onDatabase, runScenario, withBenchDatabase } from "../setup.js"

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 5_000)
const SOCKETS_PER_SESSION = 10
const JWT_SECRET = "bench-memory-secret-bench-memory-secret-0123"
const appDirectory = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
/** Built beside the app's node_modules (so its dependencies resolve), away from dist/. */
const buildDirectory = join(appDirectory, "node_modules", ".bench-server")

/** The server as production runs it: bundled by tsup (src/main.ts under tsx would weigh the transpiler in). */
const buildServer = () => {
  const built = spawnSync(
    join(appDirectory, "..", "..", "node_modules", ".bin", "tsup"),
    ["--out-dir", buildDirectory, "--silent"],
    { cwd: appDirectory, stdio: "inherit" }
  )
  if (built.status !== 0) throw new Error(`tsup failed (exit ${built.status})`)
  return join(buildDirectory, "main.js")
}

const rssKb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)
  return line === null ? Number.NaN : Number(line[1])
}

/** BENCH_NODE_FLAGS="--heapsnapshot-signal=SIGURG" … passes flags to the server's node, for a closer look. */
const extraNodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The RSS after a full GC in the server, once it has settled (three readings, the last one taken). */
const settledRss = async (server: ChildProcess) => {
  let rss = Number.NaN
  for (let i = 0; i < 3; i++) {
    server.kill("SIGUSR2")
    await sleep(1_000)
    rss = rssKb(server.pid!)
  }
  return rss
}

/** One instance alone: no Redis fan-out even when the bench's environment names one. */
const withoutRedis = ({ REDIS_URL: _redis, ...env }: NodeJS.ProcessEnv) => env

const startServer = async (serverMain: string, databaseUrl: string, port: number) => {
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", join(appDirectory, "bench", "gc-on-signal.mjs"), ...extraNodeFlags, serverMain],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...withoutRedis(process.env),
        NODE_ENV: "production",
        LOG_LEVEL: "error",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl,
        JWT_SECRET,
        SMS_PROVIDER: "console",
        PUSH_PROVIDER: "log",
        ALLOW_CONSOLE_PROVIDERS: "true",
        RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE: "100000000",
        RATE_LIMIT_API_PER_MINUTE: "100000000"
      }
    }
  )
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`)
      .then((response) => response.status < 500)
      .catch(() => false)
    if (ready) return child
    await sleep(250)
  }
  child.kill()
  throw new Error("server did not start within 180 s")
}

/** Opens and authenticates every socket, reports, then waits for "close" before closing them. Plain JS. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const WebSocket = require(workerData.wsPath)
const { wsUrl, tokens } = workerData
let failed = 0
const open = (token) => new Promise((resolve) => {
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false })
  ws.on("open", () => ws.send(JSON.stringify({ type: "auth", token })))
  ws.on("error", () => { failed++; resolve(undefined) })
  ws.on("message", (raw) => {
    const frame = JSON.parse(raw.toString())
    if (frame.type === "auth_ok") resolve(ws)
    else if (frame.type === "error") { failed++; resolve(undefined) }
  })
})
const main = async () => {
  const sockets = []
  for (let i = 0; i < tokens.length; i += 200) sockets.push(...(await Promise.all(tokens.slice(i, i + 200).map(open))))
  const opened = sockets.filter((ws) => ws !== undefined)
  parentPort.postMessage({ opened: opened.length, failed })
  parentPort.once("message", async () => {
    for (const ws of opened) ws.close()
    await new Promise((resolve) => setTimeout(resolve, 500))
    parentPort.postMessage({ closed: true })
  })
}
main()
`

const main = () =>
  withBenchDatabase("talab_memory_bench", async (database) => {
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const server = await startServer(buildServer(), database.url, port)
    try {
      const sessions = Math.ceil(SOCKETS / SOCKETS_PER_SESSION)
      const users = Math.ceil(sessions / 5)
      const rows = await onDatabase(
        database.url,
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.zipRight(
            sql.unsafe(`
              INSERT INTO users (id, phone_number, name)
              SELECT md5('memuser' || i)::uuid, '+1556' || lpad(i::text, 7, '0'), 'User ' || i
              FROM generate_series(1, ${users}) i;
              INSERT INTO sessions (id, user_id, expires_at)
              SELECT md5('memsession' || s)::uuid, md5('memuser' || (1 + s % ${users}))::uuid, now() + interval '1 day'
              FROM generate_series(1, ${sessions}) s;`),
            sql<{ id: string; userId: string }>`SELECT id, user_id AS "userId" FROM sessions`
          )
        )
      )
      const key = new TextEncoder().encode(JWT_SECRET)
      const iat = Math.floor(Date.now() / 1000)
      const sessionTokens = await Promise.all(
        rows.map((row) =>
          new SignJWT({ sid: row.id, typ: "access" })
            .setProtectedHeader({ alg: "HS256", typ: "JWT" })
            .setSubject(row.userId)
            .setIssuedAt(iat)
            .setExpirationTime(iat + 3_600)
            .setJti(randomUUID())
            .sign(key)
        )
      )
      const tokens = Array.from({ length: SOCKETS }, (_, i) => sessionTokens[i % sessionTokens.length]!)

      // Warm: one round of sockets opened and closed, so code paths are compiled before the baseline.
      await openAndClose(`ws://127.0.0.1:${port}/ws`, tokens.slice(0, 200))
      const atRest = await settledRss(server)

      const { worker, opened, failed } = await openSockets(`ws://127.0.0.1:${port}/ws`, tokens)
      const withSockets = await settledRss(server)
      if (extraNodeFlags.some((flag) => flag.startsWith("--heapsnapshot-signal=SIGURG"))) {
        server.kill("SIGURG")
        await sleep(90_000)
      }
      worker.postMessage("close")
      await new Promise((resolve) => worker.once("message", resolve))
      void worker.terminate()
      const afterClose = await settledRss(server)

      const perSocket = (withSockets - atRest) / opened
      console.log(`sockets authenticated ${opened} (failed ${failed}), ${sessions} sessions of ${users} users`)
      console.log(
        `  RSS at rest ${(atRest / 1024).toFixed(1)} MB; with the sockets ${(withSockets / 1024).toFixed(1)} MB; after they closed ${(afterClose / 1024).toFixed(1)} MB`
      )
      console.log(
        `  target: RSS at rest under 150 MB; measured ${(atRest / 1024).toFixed(1)} MB (${atRest / 1024 < 150 ? "met" : "MISSED"})`
      )
      console.log(
        `  target: at most 20 KB per idle authenticated socket; measured ${perSocket.toFixed(1)} KB (${perSocket <= 20 ? "met" : "MISSED"})`
      )
      if (opened < SOCKETS * 0.99) throw new Error(`only ${opened} of ${SOCKETS} sockets authenticated`)
    } finally {
      server.kill("SIGTERM")
      await new Promise((resolve) => server.once("exit", resolve))
    }
  })

const wsPath = createRequire(import.meta.url).resolve("ws")

const openSockets = async (wsUrl: string, tokens: ReadonlyArray<string>) => {
  const { Worker } = await import("node:worker_threads")
  const worker = new Worker(workerSource, { eval: true, workerData: { wsUrl, tokens, wsPath } })
  const { opened, failed } = await new Promise<{ opened: number; failed: number }>((resolve, reject) => {
    worker.once("message", resolve)
    worker.once("error", reject)
  })
  return { worker, opened, failed }
}

const openAndClose = async (wsUrl: string, tokens: ReadonlyArray<string>) => {
  const { worker } = await openSockets(wsUrl, tokens)
  worker.postMessage("close")
  await new Promise((resolve) => worker.once("message", resolve))
  await worker.terminate()
}

runScenario(main)
