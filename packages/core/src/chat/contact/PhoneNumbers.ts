/**
 * Phone numbers in a normalised text (./Normalise.ts), however they are spread out.
 *
 * The text is read as chains of digit groups. A group is a run of digits, a spelled digit (`five`, `خمسة`), a
 * number with thousands separators (`501,234,567`), or a date or a time (`15/01/2025`, `10:30`). Between two
 * groups of a chain may stand any run of separators and at most a few letters (two words, six letters: `050 abc
 * 123`, `٠٥٠ و ١٢٣`); more letters end the chain. Every run of consecutive groups of a chain (up to 16 digits)
 * is then tested as one number, and the groups of each that reads as a phone number are masked:
 *
 * - after `+` or from `00`: 8 to 15 digits;
 * - a mobile of the Gulf, Egypt or Jordan, local or with its country code (`0501234567`, `501234567`,
 *   `966501234567`, `96599887766`, `01012345678`, `0791234567`);
 * - a national number starting with one `0`, 9 to 12 digits;
 * - 8 digits starting with 3, 5, 6, 7 or 9 (the mobiles of Kuwait, Qatar, Bahrain and Oman), written as one
 *   group, or in groups when the text speaks of calling (`call`, `رقمي`, `واتس`, …);
 * - 10 digits or more written as one group.
 *
 * What a marketplace writes stays: a run of groups of two or more digits, none starting with 0, ascending, each
 * round (ending in 0 or 5) or a storage size (`500 / 600 / 700`, `10000-15000`, `128 / 256 / 512`); a price
 * with thousands separators ending in `000`; and dates and times, which only count inside a run that also has
 * digits of its own and then only as a mobile (`050 12:34 567`).
 */

/** A part `[start, end)` of the normalised text. */
export type Span = readonly [start: number, end: number]

interface Group {
  digits: string
  readonly start: number
  end: number
  /** A date or a time. */
  readonly soft: boolean
  /** Where a `+` written just before the group is, if one is. */
  readonly plusAt: number | undefined
  /** Made of numbers joined by thousands separators. */
  thousands: boolean
}

const GAP_LETTERS = 6
const GAP_WORDS = 2
const LONGEST = 16

const ENGLISH_DIGITS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9"
}

const ARABIC_DIGITS: Record<string, string> = Object.fromEntries(
  (
    [
      ["0", "صفر"],
      ["1", "واحد واحده وحده"],
      ["2", "اثنين اثنان اثنتين اثنتان اتنين اتنان ثنين تنين"],
      ["3", "ثلاثه ثلاث ثلاثا تلاته تلات ثلثه"],
      ["4", "اربعه اربع"],
      ["5", "خمسه خمس"],
      ["6", "سته ست سته"],
      ["7", "سبعه سبع"],
      ["8", "ثمانيه ثمان ثماني تمانيه تماني ثمنيه تمنيه"],
      ["9", "تسعه تسع"]
    ] as const
  ).flatMap(([digit, words]) => words.split(" ").map((word) => [word, digit] as const))
)

/** The Arabic word with its spelling variants folded: hamza forms to alef, taa marbuta to haa, alef maqsura to yaa. */
const foldArabic = (word: string) => word.replace(/[أإآٱ]/gu, "ا").replace(/ة/gu, "ه").replace(/ى/gu, "ي")

/** The digit a word spells, if it spells one (an Arabic one may carry the conjunction `و`). */
const spelledDigit = (word: string): string | undefined => {
  const english = ENGLISH_DIGITS[word]
  if (english !== undefined) return english
  const folded = foldArabic(word)
  return ARABIC_DIGITS[folded] ?? (folded.startsWith("و") ? ARABIC_DIGITS[folded.slice(1)] : undefined)
}

const DATE =
  /(?<![0-9])(?:([0-3]?[0-9])[/.-]([01]?[0-9])[/.-](?:19|20)?[0-9]{2}|(?:19|20)[0-9]{2}[/.-]([01]?[0-9])[/.-]([0-3]?[0-9]))(?![0-9])/gu
const TIME = /(?<![0-9])([0-2]?[0-9]):[0-5][0-9](?::[0-5][0-9])?(?![0-9])/gu

/** The dates and times of the text: a day of 1 to 31 and a month of 1 to 12, an hour of 0 to 23. */
const datesAndTimes = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  for (const match of text.matchAll(DATE)) {
    const day = Number(match[1] ?? match[4])
    const month = Number(match[2] ?? match[3])
    if (day >= 1 && day <= 31 && month >= 1 && month <= 12) spans.push([match.index, match.index + match[0].length])
  }
  for (const match of text.matchAll(TIME)) {
    if (Number(match[1]) <= 23) spans.push([match.index, match.index + match[0].length])
  }
  return spans.sort((a, b) => a[0] - b[0])
}

const STRICT = [
  /^(?:00)?(?:966|971)?0?5[0-9]{8}$/u,
  /^(?:00)?(?:96605|97105)[0-9]{8}$/u,
  /^(?:00)?(?:965|974|973|968)[35679][0-9]{7}$/u,
  /^(?:00)?(?:20|0|200)1[0125][0-9]{8}$/u,
  /^(?:00)?(?:962)?0?7[789][0-9]{7}$/u
]
const NATIONAL = /^0[1-9][0-9]{7,10}$/u
const GULF_EIGHT = /^[35679][0-9]{7}$/u
const LONG_ONE_GROUP = /^[0-9]{10,}$/u
const SPEAKS_OF_CALLING =
  /call|phone|mobile|number|whats|contact|tel|sms|text me|رقم|جوال|اتصل|كلمن|تواصل|واتس|هاتف|موبايل|اتصال|دق علي/u

const isStorageSize = (value: number) => value >= 16 && value <= 4096 && (value & (value - 1)) === 0

/** A run of groups a marketplace writes: ascending amounts or storage sizes (see the module's comment). */
const isOrdinaryList = (groups: ReadonlyArray<Group>) => {
  if (groups.length === 1) {
    const [group] = groups as [Group]
    return group.thousands && group.digits.endsWith("000") && !group.digits.startsWith("0")
  }
  let previous = -1
  for (const { digits } of groups) {
    const value = Number(digits)
    const round = digits.endsWith("0") || digits.endsWith("5") || isStorageSize(value)
    if (digits.length < 2 || digits.startsWith("0") || !round || value <= previous) return false
    previous = value
  }
  return true
}

/** Whether the groups, read as one number, are a phone number (see the module's comment). */
const isPhoneNumber = (groups: ReadonlyArray<Group>, digits: string, speaksOfCalling: boolean) => {
  if (groups.every((group) => group.soft)) return false
  const international = groups[0]!.plusAt !== undefined || digits.startsWith("00")
  const significant = digits.startsWith("00") ? digits.length - 2 : digits.length
  if (international && significant >= 8 && significant <= 15 && digits.length >= 8) return true
  if (isOrdinaryList(groups)) return false
  if (STRICT.some((pattern) => pattern.test(digits))) return true
  if (groups.some((group) => group.soft)) return false
  if (NATIONAL.test(digits)) return true
  if (groups.length === 1) return GULF_EIGHT.test(digits) || LONG_ONE_GROUP.test(digits)
  return speaksOfCalling && GULF_EIGHT.test(digits)
}

/** The parts of each phone number found in one chain of groups. */
const phoneSpansOf = (chain: ReadonlyArray<Group>, speaksOfCalling: boolean, spans: Array<Span>) => {
  for (let first = 0; first < chain.length; first++) {
    let digits = ""
    for (let last = first; last < chain.length; last++) {
      digits += chain[last]!.digits
      if (digits.length > LONGEST && last > first) break
      const groups = chain.slice(first, last + 1)
      if (isPhoneNumber(groups, digits, speaksOfCalling)) {
        spans.push([chain[first]!.plusAt ?? chain[first]!.start, chain[last]!.end])
      }
    }
  }
}

const TOKEN = /[0-9]+|\p{L}+|[^0-9\p{L}]/gu
const THOUSANDS_SEPARATOR = /^[,.،٬']$/u

/** The spans of the phone numbers in `text`, a normalised text. */
export const phoneNumberSpans = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  const softSpans = datesAndTimes(text)
  const speaksOfCalling = SPEAKS_OF_CALLING.test(text)
  let chain: Array<Group> = []
  let gapLetters = 0
  let gapWords = 0
  let gap = ""
  let plusAt: number | undefined
  let soft = 0

  const close = () => {
    if (chain.length > 0) phoneSpansOf(chain, speaksOfCalling, spans)
    chain = []
  }
  const add = (digits: string, start: number, end: number, isSoft: boolean) => {
    const previous = chain.at(-1)
    const isThousands =
      previous !== undefined &&
      !isSoft &&
      !previous.soft &&
      THOUSANDS_SEPARATOR.test(gap) &&
      digits.length === 3
    if (isThousands) {
      previous.digits += digits
      previous.end = end
      previous.thousands = true
    } else {
      chain.push({ digits, start, end, soft: isSoft, plusAt, thousands: false })
    }
    gapLetters = 0
    gapWords = 0
    gap = ""
    plusAt = undefined
  }

  for (const match of text.matchAll(TOKEN)) {
    const token = match[0]
    const start = match.index
    const end = start + token.length
    while (soft < softSpans.length && softSpans[soft]![1] <= start) soft++
    const inSoft = softSpans[soft]
    if (inSoft !== undefined && start >= inSoft[0] && start < inSoft[1]) {
      // A date or a time is one group, added when its first character is reached.
      if (start === inSoft[0]) add(text.slice(inSoft[0], inSoft[1]).replace(/[^0-9]/gu, ""), start, inSoft[1], true)
      continue
    }
    const code = token.charCodeAt(0)
    if (code >= 0x30 && code <= 0x39) {
      add(token, start, end, false)
      continue
    }
    const spelled = token.length > 1 ? spelledDigit(token) : undefined
    if (spelled !== undefined) {
      add(spelled, start, end, false)
      continue
    }
    if (/\p{L}/u.test(token)) {
      gapLetters += token.length
      gapWords++
      gap += token
      plusAt = undefined
      if (gapLetters > GAP_LETTERS || gapWords > GAP_WORDS) close()
      continue
    }
    if (token === "+") plusAt = start
    else if (token !== " ") plusAt = undefined
    if (token !== " ") gap += token
    else if (gap !== "") gap += token
  }
  close()
  return spans
}
