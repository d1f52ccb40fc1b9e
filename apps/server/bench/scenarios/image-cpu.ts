/*
 * What one photo upload can cost (POST /images: the stored image and its thumbnail): the worst inputs of an accepted size (noisy, bombs, 16-bit, interlaced,
 * progressive, lying headers, and the 1 x 39,000,000 sliver the header checks now refuse), each uploaded alone
 * to a real server, three times; prints the CPU each took (the server's process, both its JavaScript and libvips
 * threads) and the verdict that no input of at most 10 MiB, accepted or refused, costs more than 1 s of CPU
 * (exit 1 otherwise).
 *
 *   pnpm bench image-cpu      (or: npx tsx apps/server/bench/scenarios/image-cpu.ts from the repository root)
 *   BENCH_ROUNDS=3 …          uploads of each input
 *
 * The client shares the process, so its multipart encoding (a few milliseconds for 5 MiB) is counted too.
 */
import { inputs, noise } from "../image-inputs.js"
import { runScenario, signIn, unlimitedRateLimits, withBenchServer } from "../setup.js"
import { measureUploads, uploadAs } from "../upload-cpu.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CPU_BUDGET_SECONDS = 1

const upload = uploadAs("/images", "image")

const main = () =>
  withBenchServer("talab_image_cpu_bench", { rateLimits: unlimitedRateLimits }, async (server) => {
    const { token } = await signIn(server, "+966583100002")
    // The avatar's worst inputs, and noise as large as a photo may be (10 MiB).
    const cases = [
      ...(await inputs()),
      { name: "JPEG 8192 x 4069 noise q75 (~10 MiB)", bytes: await noise(8192, 4069).jpeg({ quality: 75 }).toBuffer() },
      { name: "WebP 8192 x 4069 noise q75", bytes: await noise(8192, 4069).webp({ quality: 75 }).toBuffer() }
    ].filter((input) => input.bytes.length <= 10 * 1024 * 1024)
    const { worstAccepted, worst } = await measureUploads({
      inputs: cases,
      rounds: ROUNDS,
      accepted: 201,
      upload: (bytes) => upload(server.apiUrl, token, bytes)
    })
    const holds = worst <= CPU_BUDGET_SECONDS
    console.log(
      `\nupload CPU bound: worst accepted input ${worstAccepted.toFixed(3)} s, worst input ${worst.toFixed(3)} s of CPU; verdict: ${holds ? "holds" : "FAILS"}: no input of at most 10 MiB costs more than ${CPU_BUDGET_SECONDS} s CPU`
    )
    if (!holds) process.exitCode = 1
  })

runScenario(main)
