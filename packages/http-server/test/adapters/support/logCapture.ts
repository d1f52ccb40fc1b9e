import { HashMap, Logger, type LogLevel } from "effect"

interface CapturedLog {
  readonly level: LogLevel.LogLevel["label"]
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/** A logger layer that records every log line into the returned array instead of printing it. */
export const captureLogs = () => {
  const logs: Array<CapturedLog> = []
  const logger = Logger.make(({ logLevel, message, annotations }) => {
    logs.push({ level: logLevel.label, message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
  })
  return { logs, layer: Logger.replace(Logger.defaultLogger, logger) }
}
