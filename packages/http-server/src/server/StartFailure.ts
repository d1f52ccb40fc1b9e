import { describeConfigError, isConfigError } from "../config/AppConfig.js"

/** The error's name and message, and what it wraps, as far as four levels down. */
const chainOf = (error: unknown): Array<string> => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    const { _tag, name, message, reason, cause } = current as Record<string, unknown>
    const label = [_tag ?? name, [message, reason].filter((text) => typeof text === "string" && text !== "").join(": ")]
      .filter((text) => typeof text === "string" && text !== "")
      .join(": ")
    parts.push(label || String(current))
    current = cause
  }
  if (parts.length === 0) parts.push(String(error))
  return parts
}

/** What stopped the start, on one line: a bad setting as its message, else the error then what it wraps. */
export const describeStartFailure = (error: unknown): string =>
  isConfigError(error)
    ? describeConfigError(error)
    : `Could not start: ${chainOf(error).join(" ← ").replace(/\s+/g, " ")}`
