import * as Data from "effect/Data"

/** A push provider's credentials cannot be used (unparsable key, malformed service-account JSON). */
export class PushConfigError extends Data.TaggedError("PushConfigError")<{
  readonly provider: "fcm" | "apns"
  readonly reason: string
}> {}

/** PEM keys pasted into one-line environment variables often carry literal `\n`; turn them back into newlines. */
export const normalizePem = (pem: string): string => pem.replace(/\\n/g, "\n").trim()
