/**
 * Milliseconds to wait according to an HTTP `Retry-After` header (delay-seconds or an HTTP-date),
 * or undefined when the header is absent or unreadable.
 */
export const parseRetryAfterMs = (header: string | null | undefined, nowMs: number): number | undefined => {
  if (header === null || header === undefined) return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}
