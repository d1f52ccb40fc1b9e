/*
 * What masking one chat message costs: @talab/core's maskContacts on messages of 4,000 characters (the longest
 * a message may be), of several kinds, the worst for the detector among them (digits spread one by one, a dot
 * or an @ every few characters, spelled digits, look-alike digits). Each kind is masked for BENCH_SECONDS
 * (default 2) after a warm-up; the CPU time per message is printed, and the verdict is "ok" when every kind stays
 * under 1 ms. Pure CPU, no server.
 *
 *   pnpm bench masking                     (or: npx tsx apps/server/bench/scenarios/masking.ts)
 */
import { maskContacts, maskContactsAmong } from "@talab/core"
import { runScenario } from "../setup.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const LENGTH = 4_000
const BUDGET_MS = 1

const filled = (piece: string) => piece.repeat(Math.ceil(LENGTH / piece.length)).slice(0, LENGTH)

const KINDS: ReadonlyArray<readonly [string, string]> = [
  [
    "ordinary Arabic and English",
    filled("ايفون 15 برو ماكس 256 جيجا البطارية 87% السعر 4,500 ريال. iPhone 15 Pro 256GB ")
  ],
  ["contact details", filled("كلمني على ٠٥٠ ١٢٣ ٤٥٦٧ أو ali at gmail dot com أو snap: ali_shop أو t . me/alishop ")],
  ["digits one by one", filled("1 ")],
  ["digits and words", filled("1 ab 2 cd ")],
  ["dots everywhere", filled("a.b.c.")],
  ["at signs everywhere", filled("a@b@")],
  ["spelled digits", filled("five zero خمسة صفر ")],
  ["look-alike digits", filled("０⓪𝟎\u200B०")],
  ["app names", filled("snap insta واتس ")],
  ["one long word", filled("a")],
  ["one long number", filled("9")]
]

/**
 * CPU milliseconds per call of `mask` over `seconds`, after a warm-up: CPU time, not wall time, so that other
 * work on a busy machine does not count against the detector.
 */
const timePerMessage = (mask: () => unknown, seconds: number) => {
  for (let i = 0; i < 50; i++) mask()
  let calls = 0
  const cpu = process.cpuUsage()
  const until = performance.now() + seconds * 1_000
  while (performance.now() < until) {
    for (let i = 0; i < 10; i++) mask()
    calls += 10
  }
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / 1_000 / calls
}

const main = async () => {
  const results: Array<readonly [string, number]> = []
  for (const [kind, text] of KINDS) results.push([kind, timePerMessage(() => maskContacts(text), SECONDS)])
  const nearby = [KINDS[0]![1], KINDS[0]![1]]
  results.push([
    "with 4 of the sender's messages",
    timePerMessage(() => maskContactsAmong(KINDS[1]![1], nearby, nearby), SECONDS)
  ])
  console.log(`masking, ${LENGTH} characters a message:`)
  for (const [kind, ms] of results) console.log(`  ${kind.padEnd(34)} ${(ms * 1_000).toFixed(0).padStart(6)} µs`)
  // Reading a message with four of its sender's others reads five messages: its budget is five messages'.
  const over = results.filter(([kind, ms]) => ms > (kind.startsWith("with") ? 5 : 1) * BUDGET_MS)
  console.log(
    over.length === 0
      ? `verdict: ok, every kind under ${BUDGET_MS} ms a message`
      : `verdict: too slow: ${over.map(([kind]) => kind).join(", ")}`
  )
  if (over.length > 0) process.exitCode = 1
}

void runScenario(main)
