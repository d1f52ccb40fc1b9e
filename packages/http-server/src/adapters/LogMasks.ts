/*
 * What log lines may show of a phone number or a push token: enough to tell two apart when debugging, not
 * enough to reach the person (docs/DECISIONS.md, "Logs").
 */

/** `+966501234567` → `+9665******67`: the country code and first digit, the last two. */
export const maskPhone = (phone: string): string => {
  const digits = phone.replace(/^\+/, "")
  if (digits.length < 8) return `+${"*".repeat(digits.length)}`
  return `+${digits.slice(0, 4)}${"*".repeat(digits.length - 6)}${digits.slice(-2)}`
}

/** A push token's first and last four characters; a short one is masked whole. */
export const maskToken = (token: string): string =>
  token.length <= 12 ? "*".repeat(token.length) : `${token.slice(0, 4)}…${token.slice(-4)}`

/** Masks every number in E.164 inside a text (a provider's error message may quote the number it refused). */
export const maskPhonesIn = (text: string): string => text.replace(/\+\d{7,15}\b/g, maskPhone)
