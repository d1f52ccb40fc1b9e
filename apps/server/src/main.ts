import { NodeRuntime } from "@effect/platform-node"
import { describeConfigError, isConfigError, ProductionServerLive } from "@talab/http-server"
import { Effect, Layer, Logger, LogLevel } from "effect"

const logLevel = LogLevel.fromLiteral(
  (({ all: "All", trace: "Trace", debug: "Debug", info: "Info", warning: "Warning", error: "Error", fatal: "Fatal", none: "None" }) as const)[
    (process.env.LOG_LEVEL ?? "info") as "info"
  ] ?? "Info"
)

Layer.launch(ProductionServerLive).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      process.stderr.write(`${isConfigError(error) ? describeConfigError(error) : `Could not start: ${String(error)}`}\n`)
      process.exitCode = 1
    })
  ),
  Logger.withMinimumLogLevel(logLevel),
  Effect.provide(process.env.NODE_ENV === "production" ? Logger.json : Logger.logFmt),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
