/**
 * Contact details in chat are masked for the recipient until the offer is accepted, so deals stay on the
 * platform where ratings and reports protect both sides. What counts as a contact detail (docs/DECISIONS.md,
 * "Contact details in chat"):
 *
 * - a phone number: digits (ASCII, Arabic-Indic `٠-٩` or Eastern Arabic-Indic `۰-۹`, mixed or not), possibly
 *   grouped by spaces, dashes, dots or parentheses, that has 9 digits or more, or 8 and either a leading `+`
 *   or `00` or no separator at all (the 8-digit mobiles of Kuwait, Qatar, Bahrain and Oman). Not masked: a
 *   date written `2025-01-15`, and a range of two similar numbers such as `10000-15000`;
 * - an e-mail address, including the `name (at) mail (dot) com` spelling;
 * - a link: anything starting with `http://`, `https://` or `www.`, and a bare domain with a common top-level
 *   domain (`wa.me/…`, `t.me/…`, `instagram.com/…`, `bit.ly/…`, `shop.sa`).
 *
 * Prices (`3,500`, `1500.50`), model numbers (`iPhone 15 Pro 256`, `SM-S928B`) and storage sizes stay as they
 * are. Each detail becomes `***`.
 */

/** What the recipient is shown of a message text, and whether anything in it was masked. */
export interface MaskedText {
  readonly text: string
  readonly masked: boolean
}

/** What each contact detail in a masked message text is replaced with. */
export const MASK = "***"

const DIGIT = "[0-9\\u0660-\\u0669\\u06F0-\\u06F9]"
const GAP = "[ \\t\\u00A0.()\\-]{1,3}"
const NUMBER = new RegExp(`(?:\\+[ \\t\\u00A0]?|\\(?)${DIGIT}(?:(?:${GAP})?${DIGIT})*`, "gu")
const TLDS = [
  "com",
  "net",
  "org",
  "info",
  "biz",
  "io",
  "co",
  "me",
  "ly",
  "gl",
  "app",
  "link",
  "page",
  "site",
  "online",
  "store",
  "shop",
  "xyz",
  "sa",
  "ae",
  "eg",
  "kw",
  "qa",
  "bh",
  "om",
  "jo",
  "lb",
  "iq",
  "ma",
  "dz",
  "tn",
  "ps",
  "sy",
  "ye",
  "sd",
  "uk",
  "us"
]
// Each pattern may only start where its first run of characters starts (the look-behinds): a match is tried
// once per run, not once per character, so a long text costs linear time, not quadratic.
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+(?:@|\s*[([]\s*at\s*[)\]]\s*)[\p{L}\p{N}-]+(?:(?:\.|\s*[([]\s*dot\s*[)\]]\s*)[\p{L}\p{N}-]+)*(?:\.|\s*[([]\s*dot\s*[)\]]\s*)\p{L}{2,}/giu
const LINK = new RegExp(
  `(?:https?://|www\\.)[^\\s]+|(?<![\\p{L}\\p{N}@.-])(?:[\\p{L}\\p{N}-]+\\.)+(?:${TLDS.join("|")})(?![\\p{L}\\p{N}-])(?:/[^\\s]*)?`,
  "giu"
)

/** A digit of any of the three scripts, as its value. */
const digitValue = (c: string) => {
  const code = c.charCodeAt(0)
  if (code >= 0x0660 && code <= 0x0669) return code - 0x0660
  if (code >= 0x06f0 && code <= 0x06f9) return code - 0x06f0
  return code - 0x30
}

const ANY_DIGIT = new RegExp(DIGIT, "u")
const MAY_HAVE_EMAIL = /@|[([]\s*at\s*[)\]]/iu
const NOT_DIGITS = new RegExp(`[^${DIGIT.slice(1, -1)}]+`, "u")
const DASHED_PAIR = new RegExp(`^${DIGIT}+-${DIGIT}+$`, "u")
const ISO_DATE = new RegExp(`^${DIGIT}{4}-${DIGIT}{2}-${DIGIT}{2}$`, "u")

const groupsOf = (run: string) => run.split(NOT_DIGITS).filter((g) => g !== "")

const numberOf = (group: string) => Number([...group].map(digitValue).join(""))

/** Two numbers of about the same length, the first not above the second, joined by a dash: a range. */
const isRange = (run: string, groups: ReadonlyArray<string>) => {
  if (!DASHED_PAIR.test(run.replace(/[ \t\u00A0]/gu, ""))) return false
  const [low, high] = groups as [string, string]
  const startsWithZero = (g: string) => digitValue(g[0]!) === 0
  return (
    Math.abs(low.length - high.length) <= 1 &&
    !startsWithZero(low) &&
    !startsWithZero(high) &&
    numberOf(low) <= numberOf(high)
  )
}

const isIsoDate = (run: string) => ISO_DATE.test(run)

/** Whether a run of digits and separators reads as a phone number (see the module's comment). */
export const isPhoneLike = (run: string): boolean => {
  const trimmed = run.replace(/^\(/u, "")
  const groups = groupsOf(trimmed)
  const digits = groups.join("").length
  if (isIsoDate(trimmed) || isRange(trimmed, groups)) return false
  const international = trimmed.startsWith("+") || /^[0\u0660\u06F0]{2}/u.test(trimmed)
  if (digits >= 9) return true
  return digits === 8 && (international || groups.length === 1)
}

/** The text with every contact detail replaced by `***`. */
export const maskContacts = (text: string): MaskedText => {
  let masked = false
  const replace = () => {
    masked = true
    return MASK
  }
  // Cheap tests first: most messages have no `@`, no dot and no digit, and skip the patterns.
  const withoutEmails = MAY_HAVE_EMAIL.test(text) ? text.replace(EMAIL, replace) : text
  const withoutLinks = withoutEmails.includes(".") ? withoutEmails.replace(LINK, replace) : withoutEmails
  const result = ANY_DIGIT.test(withoutLinks)
    ? withoutLinks.replace(NUMBER, (run) => (isPhoneLike(run) ? replace() : run))
    : withoutLinks
  return { text: result, masked }
}
