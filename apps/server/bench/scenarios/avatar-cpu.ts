/*
 * What one avatar upload can cost: the worst inputs of an accepted size (noisy, bombs, 16-bit, interlaced,
 * progressive, lying headers, and the 1 x 39,000,000 sliver the header checks now refuse), each uploaded alone
 * to a real server, three times; prints the CPU each took (the server's process, both its JavaScript and libvips
 * threads) and the verdict that no accepted input costs more than 1 s of CPU (exit 1 otherwise).
 *
 *   pnpm bench avatar-cpu     (or: npx tsx apps/server/bench/scenarios/avatar-cpu.ts from the repository root)
 *   BENCH_ROUNDS=3 …          uploads of each input
 *
 * The client shares the process, so its multipart encoding (a few milliseconds for 5 MiB) is counted too.
 */
import { inputs } from "../image-inputs.js"
import { runScenario, signIn, unlimitedRateLimits, withBenchServer } from "../setup.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CPU_BUDGET_SECONDS = 1

const upload = async (apiUrl: string, token: string, bytes: Uint8Array) => {
  const form = new FormData()
  form.append("avatar", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "a.png")
  const response = await fetch(`${apiUrl}/users/me/avatar`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form
  })
  const body: any = await response.json()
  return { status: response.status, detail: body?.error?.details?.avatar?.[0] as string | undefined }
}

const main = () =>
  withBenchServer("talab_avatar_cpu_bench", { rateLimits: unlimitedRateLimits }, async (server) => {
    const { token } = await signIn(server, "+966583100001")
    const cases = await inputs()
    console.log(`${"input".padEnd(50)} ${"KiB".padStart(6)}  status  ${"CPU s (max of rounds)".padEnd(22)} wall s`)
    let worstAccepted = 0
    for (const { name, bytes } of cases) {
      let cpu = 0
      let wall = 0
      let outcome = { status: 0, detail: undefined as string | undefined }
      for (let round = 0; round < ROUNDS; round++) {
        const before = process.cpuUsage()
        const started = performance.now()
        outcome = await upload(server.apiUrl, token, bytes)
        const used = process.cpuUsage(before)
        cpu = Math.max(cpu, (used.user + used.system) / 1e6)
        wall = Math.max(wall, (performance.now() - started) / 1000)
      }
      if (outcome.status === 200) worstAccepted = Math.max(worstAccepted, cpu)
      console.log(
        `${name.padEnd(50)} ${(bytes.length / 1024).toFixed(0).padStart(6)}  ${String(outcome.status).padEnd(6)}  ${cpu.toFixed(3).padEnd(22)} ${wall.toFixed(2)}${outcome.detail ? `  (${outcome.detail})` : ""}`
      )
    }
    const holds = worstAccepted <= CPU_BUDGET_SECONDS
    console.log(
      `\nworst accepted input: ${worstAccepted.toFixed(3)} s of CPU; verdict: ${holds ? "holds" : "FAILS"}: no accepted-size input costs more than ${CPU_BUDGET_SECONDS} s CPU`
    )
    if (!holds) process.exitCode = 1
  })

runScenario(main)
