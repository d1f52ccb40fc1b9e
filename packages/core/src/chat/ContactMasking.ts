import * as Schema from "effect/Schema"
import { fieldRule } from "../shared/Fields.js"
import { addressSpans } from "./contact/Addresses.js"
import { normalise } from "./contact/Normalise.js"
import { phoneNumberSpans, type Span } from "./contact/PhoneNumbers.js"

/**
 * Contact details are masked for the other party until the offer is accepted, so deals stay on the platform
 * where ratings and reports protect both sides (docs/DECISIONS.md, "Contact details"). The text is looked at in a
 * normalised form (./contact/Normalise.ts: look-alike digits read as digits, invisible characters dropped), so
 * a detail disguised with them is found; what is found is masked in the text as written. Phone numbers:
 * ./contact/PhoneNumbers.ts; e-mail addresses, links, domains and handles: ./contact/Addresses.ts.
 */

/** What the reader is shown of a text, and whether anything in it was masked. */
export interface MaskedText {
  readonly text: string
  readonly masked: boolean
}

/** What each contact detail in a masked text is replaced with. */
export const MASK = "***"

const TRAILING_INVISIBLE = /^[\p{M}\p{Cf}\u0640]+/u

/** Where a detail found up to `end` ends in `text`: the marks and invisible characters after it go with it. */
const endWithMarks = (text: string, end: number) =>
  end + (TRAILING_INVISIBLE.exec(text.slice(end, end + 16))?.[0].length ?? 0)

/** The parts of `text` (as written) holding a contact detail, in order, overlapping ones joined. */
const contactSpans = (text: string): Array<Span> => {
  const normalised = normalise(text)
  const found = [...phoneNumberSpans(normalised.text), ...addressSpans(normalised.text)]
  const inOriginal = found
    .filter(([start, end]) => end > start)
    .map(([start, end]): Span => [normalised.from(start), endWithMarks(text, normalised.to(end - 1))])
    .sort((a, b) => a[0] - b[0])
  const joined: Array<[number, number]> = []
  for (const [start, end] of inOriginal) {
    const last = joined.at(-1)
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end)
    else joined.push([start, end])
  }
  return joined
}

const replaced = (text: string, spans: ReadonlyArray<Span>): MaskedText => {
  if (spans.length === 0) return { text, masked: false }
  let result = ""
  let at = 0
  for (const [start, end] of spans) {
    result += text.slice(at, start) + MASK
    at = end
  }
  return { text: result + text.slice(at), masked: true }
}

/** Whether `text` holds a contact detail (a name or a bio that does is refused). */
export const hasContactDetail = (text: string): boolean => contactSpans(text).length > 0

/**
 * The rule of a text shown to others as it is, without masking (a user's name, a seller's business name and
 * bio): it may hold no contact detail (`contact_details`).
 */
export const withoutContactDetails = <A extends string, I, R>(schema: Schema.Schema<A, I, R>) =>
  schema.pipe(Schema.filter((text: A) => !hasContactDetail(text), fieldRule("contact_details")))

/** `text` with every contact detail replaced by `***`. */
export const maskContacts = (text: string): MaskedText => replaced(text, contactSpans(text))

/** An optional free text (request notes, an offer's texts) as the other party reads it before a deal. */
export const maskedField = (text: string | null): string | null => (text === null ? null : maskContacts(text).text)

/**
 * A number split over messages (`050 123`, then `4567`) is found by reading each message with its sender's
 * messages around it in the conversation: at most this many before and after it, sent at most this many minutes
 * from it. Messages in between from the other party do not break the spread.
 */
export const SPREAD_MESSAGES = 4
/** How far apart in time, at most, the messages a number is spread over may be. */
export const SPREAD_MINUTES = 10
/** How far in seq a reader looks for the sender's messages around one: both parties' messages count. */
export const SPREAD_SEQS = 40

/** A message of a conversation, as the spread is read from. */
export interface ChatLine {
  readonly seq: number
  readonly senderId: string
  readonly messageText: string
  readonly createdAt: Date
}

const SPREAD_JOINER = "\n"

/**
 * `text` with every contact detail replaced by `***`, also those it holds only in part, the rest being in the
 * sender's messages `before` it and `after` it (oldest first, already chosen: see `neighboursOf`).
 */
export const maskContactsAmong = (
  text: string,
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): MaskedText => {
  if (before.length === 0 && after.length === 0) return maskContacts(text)
  const prefix = before.map((earlier) => earlier + SPREAD_JOINER).join("")
  const whole = prefix + text + after.map((later) => SPREAD_JOINER + later).join("")
  const start = prefix.length
  const end = start + text.length
  const own = contactSpans(whole)
    .filter(([from, to]) => to > start && from < end)
    .map(([from, to]): Span => [Math.max(from, start) - start, Math.min(to, end) - start])
  return replaced(text, own)
}

/**
 * The texts of the sender's messages around `lines[index]` that are read with it (see SPREAD_MESSAGES), from
 * `lines`, the conversation's messages by seq.
 */
export const neighboursOf = (
  lines: ReadonlyArray<ChatLine>,
  index: number
): { readonly before: ReadonlyArray<string>; readonly after: ReadonlyArray<string> } => {
  const line = lines[index]!
  const near = (other: ChatLine) =>
    other.senderId === line.senderId &&
    Math.abs(other.createdAt.getTime() - line.createdAt.getTime()) <= SPREAD_MINUTES * 60_000
  const before: Array<string> = []
  for (let at = index - 1; at >= 0 && before.length < SPREAD_MESSAGES; at--) {
    if (near(lines[at]!)) before.unshift(lines[at]!.messageText)
  }
  const after: Array<string> = []
  for (let at = index + 1; at < lines.length && after.length < SPREAD_MESSAGES; at++) {
    if (near(lines[at]!)) after.push(lines[at]!.messageText)
  }
  return { before, after }
}
