import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type { AppSettings } from "../config/AppConfig.js"
import type { LogLevelName } from "../config/LogLevel.js"

const levels: Readonly<Record<LogLevelName, LogLevel.LogLevel>> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/** Effect's level for a LOG_LEVEL name. */
export const logLevelOf = (name: LogLevelName): LogLevel.LogLevel => levels[name]

/**
 * Runs `effect` (the server's whole life) logging as the settings say: from LOG_LEVEL up, as JSON lines under
 * NODE_ENV=production and as logfmt otherwise.
 */
export const withLogging =
  (settings: Pick<AppSettings, "logLevel" | "nodeEnv">) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    effect.pipe(
      Logger.withMinimumLogLevel(logLevelOf(settings.logLevel)),
      Effect.provide(settings.nodeEnv === "production" ? Logger.json : Logger.logFmt)
    )
