#!/usr/bin/env node
import { runCli } from "@talab/http-server"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/* `talab <command>`: operator commands on the server's database (see `talab` without arguments). */
Effect.runPromise(
  runCli(process.argv.slice(2)).pipe(Logger.withMinimumLogLevel(LogLevel.Warning), Effect.provide(Logger.logFmt))
).then(
  (outcome) => {
    for (const line of outcome.stdout) process.stdout.write(`${line}\n`)
    for (const line of outcome.stderr) process.stderr.write(`${line}\n`)
    process.exitCode = outcome.code
  },
  (error) => {
    process.stderr.write(`talab: ${String(error)}\n`)
    process.exitCode = 1
  }
)
