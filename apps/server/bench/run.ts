/*
 * `pnpm bench`: runs every scenario of bench/scenarios/ one after the other, each in its own process, and
 * sums up how each went. A scenario is a script that starts what it needs (server, fresh database), prints
 * its own figures (p50/p95/p99, requests per second), cleans up and exits non-zero when it failed.
 *
 *   pnpm bench                 every scenario
 *   pnpm bench auth push       the scenarios whose file name contains one of the words
 *   BENCH_SECONDS, BENCH_CLIENTS and BENCH_TIMEOUT_SECONDS (default 900) are passed on / applied.
 */
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const scenariosDirectory = join(dirname(fileURLToPath(import.meta.url)), "scenarios")
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 900) * 1000

interface Outcome {
  readonly scenario: string
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly seconds: number
}

const scenarioFiles = (filters: ReadonlyArray<string>) =>
  readdirSync(scenariosDirectory)
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .filter((file) => filters.length === 0 || filters.some((word) => file.includes(word)))
    .sort()
    .map((file) => join(scenariosDirectory, file))

/** Runs one scenario in a child process with the console passed through; kills it (only it) after the timeout. */
const runScenario = (file: string) =>
  new Promise<Outcome>((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, ["--import", "tsx", file], { stdio: "inherit", env: process.env })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGTERM")
    }, timeoutMs)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({
        scenario: basename(file, ".ts"),
        exitCode: code,
        timedOut,
        seconds: (performance.now() - started) / 1000
      })
    })
  })

const main = async () => {
  const files = scenarioFiles(process.argv.slice(2))
  if (files.length === 0) {
    console.error(`no scenario in ${scenariosDirectory} matches ${process.argv.slice(2).join(" ")}`)
    process.exitCode = 1
    return
  }
  const outcomes: Array<Outcome> = []
  for (const file of files) {
    console.log(`\n=== ${basename(file, ".ts")} ===`)
    outcomes.push(await runScenario(file))
  }
  console.log("\n=== summary ===")
  for (const { scenario, exitCode, timedOut, seconds } of outcomes) {
    const verdict = timedOut ? "timed out" : exitCode === 0 ? "ok" : `failed (exit ${exitCode})`
    console.log(`${scenario.padEnd(24)} ${verdict.padEnd(16)} ${seconds.toFixed(0)} s`)
  }
  if (outcomes.some((o) => o.exitCode !== 0)) process.exitCode = 1
}

void main()
