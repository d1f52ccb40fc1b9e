/** The log levels LOG_LEVEL takes, by Effect's names. */
export const logLevelNames = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const
export type LogLevelName = (typeof logLevelNames)[number]

/** Spellings other loggers use (pino, winston, npm say `warn`), read as Effect's names. */
const logLevelAliases: Readonly<Record<string, LogLevelName>> = { warn: "warning" }

/** LOG_LEVEL's value as one of Effect's level names (`warn` becomes `warning`); unknown names stay as given. */
export const normalizeLogLevel = (name: LogLevelName | keyof typeof logLevelAliases): LogLevelName =>
  logLevelAliases[name] ?? (name as LogLevelName)
