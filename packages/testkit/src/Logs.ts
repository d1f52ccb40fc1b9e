import * as Cause from "effect/Cause"
import * as HashMap from "effect/HashMap"
import * as Logger from "effect/Logger"

/** One log line the marketplace wrote: level, message and annotations (request_id, method, status, …). */
export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
  /** The failure the line was logged with, rendered, if any. */
  readonly cause?: string
  readonly at: Date
}

const KEPT_LINES = 10_000

/** The log lines of the marketplace (at least the newest 10,000), so tests can check what it logs. */
export class LogRecorder {
  readonly lines: Array<LogLine> = []

  /** The lines whose annotations include all of `annotations`. */
  matching(annotations: Readonly<Record<string, unknown>>): Array<LogLine> {
    return this.lines.filter((line) =>
      Object.entries(annotations).every(([key, value]) => line.annotations[key] === value)
    )
  }

  private readonly logger = Logger.make(({ annotations, cause, date, logLevel, message }) => {
    const messages = Array.isArray(message) ? message : [message]
    this.lines.push({
      level: logLevel.label,
      message: messages.map(String).join(" "),
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      ...(Cause.isEmpty(cause) ? {} : { cause: Cause.pretty(cause) }),
      at: date
    })
    // Trimmed in batches, so a long run (a benchmark) does not shift the whole array on every line.
    if (this.lines.length >= 2 * KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES)
  })

  /** Records instead of printing; with `print`, also prints as Effect's default logger does. */
  layer(print: boolean) {
    return print ? Logger.add(this.logger) : Logger.replace(Logger.defaultLogger, this.logger)
  }
}
