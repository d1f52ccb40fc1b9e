import { NodeRuntime } from "@effect/platform-node"
import {
  AppConfig,
  describeConfigError,
  isConfigError,
  normalizeLogLevel,
  ProductionServerLive
} from "@talab/http-server"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { OtlpFromConfig } from "./Telemetry.js"

const logLevels: Record<string, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/** What stopped the start, on one line: the error, then what it wraps ("ServeError: listen EADDRINUSE …"). */
const describeStartFailure = (error: unknown): string => {
  if (isConfigError(error)) return describeConfigError(error)
  const parts: Array<string> = []
  for (let current: any = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const name = current._tag ?? current.name
    const detail = [current.message, current.reason]
      .filter((text) => typeof text === "string" && text !== "")
      .join(": ")
    parts.push([name, detail].filter((text) => typeof text === "string" && text !== "").join(": ") || String(current))
    current = current.cause
  }
  return `Could not start: ${parts.join(" ← ").replace(/\s+/g, " ")}`
}

// The tracer is installed before the server is built, so the server's fibers carry it.
const ServerWithTelemetry = ProductionServerLive.pipe(
  Layer.provide(OtlpFromConfig.pipe(Layer.provide(AppConfig.fromEnv)))
)

Layer.launch(ServerWithTelemetry).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      process.stderr.write(`${describeStartFailure(error)}\n`)
      process.exitCode = 1
    })
  ),
  Logger.withMinimumLogLevel(logLevels[normalizeLogLevel(process.env.LOG_LEVEL ?? "info")] ?? LogLevel.Info),
  Effect.provide(process.env.NODE_ENV === "production" ? Logger.json : Logger.logFmt),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
