/*
 * Sign-in and profile reads on PostgreSQL: POST /auth/request-otp, POST /auth/verify-otp and GET /users/me,
 * each under BENCH_CLIENTS (50) concurrent clients for up to BENCH_SECONDS (10 s).
 *
 *   pnpm bench auth                          (or: npx tsx apps/server/bench/scenarios/auth.ts)
 *   BENCH_SECONDS=10 BENCH_CLIENTS=50 …      to change the load
 *
 * A real server (testkit's startTestServer, rate limits out of the way) on a fresh database that is dropped at
 * the end. Codes come from the testkit's SMS recorder. Every code is good once, so the verify load is bounded
 * by the codes the request-otp load produced. Loopback only.
 */
import { startTestServer, type TestServer } from "@talab/testkit"
import { benchSettings, type Call, formatReports, type LoadReport, runLoad } from "../load.js"
import { createBenchDatabase } from "../seed.js"

const { seconds, clients } = benchSettings()
const HIGH = 1_000_000_000
const rateLimits = {
  authPerMinute: HIGH,
  otpPer10Minutes: HIGH,
  apiPerMinute: HIGH,
  wsMessagesPerMinute: HIGH,
  wsHandshakesPerMinute: HIGH
}
/** Phones per client for the request-otp load: more than a client gets through in the time given. */
const PHONES_PER_CLIENT = Number(process.env.BENCH_PHONES_PER_CLIENT ?? 400)

/** A valid Saudi mobile number per index. */
const phone = (n: number) => `+96650${String(n).padStart(7, "0")}`

const post = (path: string, body: unknown): Call => ({ method: "POST", path, body })

/** The last code sent to each number. */
const codesByPhone = (server: TestServer) => new Map(server.sms.sent.map((sms) => [sms.to, sms.code] as const))

const signIn = async (server: TestServer, phoneNumber: string) => {
  const send = (path: string, body: unknown) =>
    fetch(`${server.apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  await send("/auth/request-otp", { phone_number: phoneNumber })
  const verified: any = await (
    await send("/auth/verify-otp", { phone_number: phoneNumber, otp_code: codesByPhone(server).get(phoneNumber) })
  ).json()
  if (!verified.success) throw new Error(`sign-in failed: ${JSON.stringify(verified)}`)
  return verified.data.tokens.access_token as string
}

const main = async () => {
  const database = await createBenchDatabase("talab_auth_bench")
  const server = await startTestServer({ databaseUrl: database.url, settings: { rateLimits } })
  const reports: Array<LoadReport> = []
  try {
    const tokens: Array<string> = []
    // Warm-up as well: one signed-in user per client, one after the other.
    for (let c = 0; c < clients; c++) tokens.push(await signIn(server, phone(9_000_000 + c)))
    console.log(`auth bench: ${clients} clients, up to ${seconds} s per scenario, PostgreSQL ${database.name}`)

    const phonesOf = (c: number) =>
      Array.from({ length: PHONES_PER_CLIENT }, (_, k) => phone(c * PHONES_PER_CLIENT + k))
    reports.push(
      await runLoad("POST /auth/request-otp", {
        baseUrl: server.apiUrl,
        clients: Array.from({ length: clients }, (_, c) =>
          phonesOf(c).map((p) => post("/auth/request-otp", { phone_number: p }))
        ),
        durationMs: seconds * 1000
      })
    )

    const codes = codesByPhone(server)
    const verifyCalls = (c: number) =>
      phonesOf(c)
        .filter((p) => codes.has(p))
        .map((p) => post("/auth/verify-otp", { phone_number: p, otp_code: codes.get(p) }))
    reports.push(
      await runLoad("POST /auth/verify-otp", {
        baseUrl: server.apiUrl,
        clients: Array.from({ length: clients }, (_, c) => verifyCalls(c)),
        durationMs: seconds * 1000
      })
    )

    reports.push(
      await runLoad("GET /users/me", {
        baseUrl: server.apiUrl,
        clients: tokens.map((token) => [
          { method: "GET", path: "/users/me", headers: { authorization: `Bearer ${token}` } }
        ]),
        durationMs: seconds * 1000,
        cycle: true
      })
    )
    console.log(formatReports(reports))
    if (reports.some((r) => r.errors > 0)) process.exitCode = 1
  } finally {
    await server.close()
    await database.drop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
