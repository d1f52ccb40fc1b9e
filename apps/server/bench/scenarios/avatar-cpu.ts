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
import { measureUploads, uploadAs } from "../upload-cpu.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CPU_BUDGET_SECONDS = 1

const upload = uploadAs("/users/me/avatar", "avatar")

const main = () =>
  withBenchServer("talab_avatar_cpu_bench", { rateLimits: unlimitedRateLimits }, async (server) => {
    const { token } = await signIn(server, "+966583100001")
    const cases = await inputs()
    const { worstAccepted } = await measureUploads({
      inputs: cases,
      rounds: ROUNDS,
      accepted: 200,
      upload: (bytes) => upload(server.apiUrl, token, bytes)
    })
    const holds = worstAccepted <= CPU_BUDGET_SECONDS
    console.log(
      `\nworst accepted input: ${worstAccepted.toFixed(3)} s of CPU; verdict: ${holds ? "holds" : "FAILS"}: no accepted-size input costs more than ${CPU_BUDGET_SECONDS} s CPU`
    )
    if (!holds) process.exitCode = 1
  })

runScenario(main)
