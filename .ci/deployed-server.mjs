// CI: the server as production runs it. `pnpm --filter @talab/server deploy --prod` into a temporary folder,
// then plain `node` in that folder (no tsx, no dev dependencies): the `talab` command migrates, the server
// starts on an in-memory database, a user signs in over HTTP, the admin console's page and files are served, and
// SIGTERM stops it with exit code 0.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const work = mkdtempSync(join(tmpdir(), "talab-deployed-"))
const app = join(work, "app")
const fail = (message) => {
  throw new Error(`deployed server: ${message}`)
}

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

const post = (base, path, body, token) =>
  fetch(`${base}/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body)
  })

let server
try {
  execFileSync("pnpm", ["--filter", "@talab/server", "build"], { stdio: "inherit" })
  execFileSync("pnpm", ["--filter", "@talab/server", "deploy", "--prod", app], { stdio: "inherit" })
  for (const devOnly of ["tsx", "typescript", "vitest", "@talab/http-server", "@talab/contract", "@talab/core"])
    if (existsSync(join(app, "node_modules", devOnly))) fail(`${devOnly} is in the production folder`)

  const env = { PATH: process.env.PATH, HOME: work, DATA_DIR: join(work, "data"), NODE_ENV: "production" }
  const migrated = execFileSync(process.execPath, ["dist/cli.js", "migrate"], {
    cwd: app,
    env: { ...env, DATABASE_URL: "memory://" },
    encoding: "utf8"
  })
  if (!/migrat/i.test(migrated)) fail(`talab migrate printed ${JSON.stringify(migrated)}`)

  const port = await freePort()
  const smsFile = join(work, "sms.jsonl")
  server = spawn(process.execPath, ["dist/main.js"], {
    cwd: app,
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: "memory://",
      JWT_SECRET: "a-production-secret-of-at-least-32-bytes",
      // No SMS provider here: the codes are read from the outbox file.
      ALLOW_CONSOLE_PROVIDERS: "true",
      SMS_OUTBOX_FILE: smsFile
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  const exited = new Promise((resolve) => server.once("exit", (code, signal) => resolve({ code, signal })))
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (server.exitCode !== null) fail(`exited with ${server.exitCode} before listening`)
    if (Date.now() > deadline) fail("did not come up in 120 s")
    const live = await fetch(`${base}/health/live`).catch(() => undefined)
    if (live?.ok) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }

  const phone = "+966501234567"
  const requested = await post(base, "/auth/request-otp", { phone_number: phone })
  if (requested.status !== 200) fail(`request-otp answered ${requested.status}`)
  const code = JSON.parse(readFileSync(smsFile, "utf8").trim().split("\n").at(-1)).code
  const verified = await post(base, "/auth/verify-otp", { phone_number: phone, otp_code: code })
  if (verified.status !== 200) fail(`verify-otp answered ${verified.status}`)
  const token = (await verified.json()).data.tokens.access_token
  const me = await fetch(`${base}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })
  if (me.status !== 200) fail(`/users/me answered ${me.status}`)

  // The admin console is part of the deployed folder: its page and the files the page names are served.
  const page = await fetch(`${base}/admin/`)
  if (page.status !== 200) fail(`/admin/ answered ${page.status}`)
  const html = await page.text()
  for (const [, asset] of html.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)) {
    const file = await fetch(`${base}${asset}`)
    if (file.status !== 200) fail(`${asset} answered ${file.status}`)
  }

  server.kill("SIGTERM")
  const { code: exitCode, signal } = await exited
  if (exitCode !== 0) fail(`SIGTERM ended it with code ${exitCode} (signal ${signal})`)
  console.log(
    "deployed server: built, deployed, migrated, started with node, signed in, served the admin console, stopped on SIGTERM"
  )
} finally {
  if (server && server.exitCode === null && server.signalCode === null) server.kill("SIGKILL")
  rmSync(work, { recursive: true, force: true })
}
