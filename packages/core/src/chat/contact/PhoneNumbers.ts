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

import { isDigit, isLetter } from "./Characters.js"

/** A part `[start, end)` of the normalised text. */
export type Span = readonly [start: number, end: number]

interface Group {
  digits: string
  readonly start: number
  end: number
  /** A date, a time or a quantity (a number with its unit). */
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

/**
 * The spellings of each Arabic digit word as people write them: with or without hamza on the alef, taa marbuta
 * or haa at the end, alef maqsura or yaa. All are in the table, so a word is one lookup.
 */
const spellings = (word: string): ReadonlyArray<string> => {
  const ends = word.endsWith("ه") ? [word, `${word.slice(0, -1)}ة`] : [word]
  const starts = ends.flatMap((w) => (w.startsWith("ا") ? [w, `أ${w.slice(1)}`, `إ${w.slice(1)}`] : [w]))
  return starts.flatMap((w) => (w.endsWith("ي") ? [w, `${w.slice(0, -1)}ى`] : [w]))
}
const ARABIC_SPELLINGS = new Map(
  Object.entries(ARABIC_DIGITS).flatMap(([word, digit]) =>
    spellings(word).map((spelling) => [spelling, digit] as const)
  )
)

/** The digit a word spells, if it spells one (an Arabic one may carry the conjunction `و`). */
const spelledDigit = (word: string): string | undefined =>
  ENGLISH_DIGITS[word] ??
  ARABIC_SPELLINGS.get(word) ??
  (word.charCodeAt(0) === 0x0648 ? ARABIC_SPELLINGS.get(word.slice(1)) : undefined)

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

const SPEAKS_OF_CALLING =
  /call|phone|mobile|number|whats|contact|tel|sms|text me|رقم|جوال|اتصل|كلمن|تواصل|واتس|هاتف|موبايل|اتصال|دق علي/u

/** Whether `digits` has `prefix` at `at`. */
const has = (digits: string, prefix: string, at = 0) => digits.startsWith(prefix, at)
const oneOf = (digits: string, at: number, choices: string) => choices.includes(digits[at] ?? "x")

/**
 * Numbers only written with a leading 0, a country code or an international prefix: the mobiles of Saudi
 * Arabia and the Emirates (`05…`, `9665…`, `96605…`), Kuwait, Qatar, Bahrain and Oman with their code, Egypt
 * (`01[0125]…`, `201…`) and Jordan (`07[789]…`, `9627…`). Written out rather than as regular expressions: it is
 * asked for every run of groups.
 */
const isStrong = (all: string) => {
  const at = has(all, "00") ? 2 : 0
  const length = all.length - at
  const saudiOrEmirati = has(all, "966", at) || has(all, "971", at)
  switch (length) {
    case 10:
      return has(all, "05", at) || (has(all, "07", at) && oneOf(all, at + 2, "789"))
    case 11:
      return (
        ((has(all, "965", at) || has(all, "974", at) || has(all, "973", at) || has(all, "968", at)) &&
          oneOf(all, at + 3, "35679")) ||
        (has(all, "01", at) && oneOf(all, at + 2, "0125"))
      )
    case 12:
      return (
        (saudiOrEmirati && all[at + 3] === "5") ||
        (has(all, "201", at) && oneOf(all, at + 3, "0125")) ||
        (has(all, "9627", at) && oneOf(all, at + 4, "789"))
      )
    case 13:
      return (
        (saudiOrEmirati && has(all, "05", at + 3)) ||
        (has(all, "2001", at) && oneOf(all, at + 4, "0125")) ||
        (has(all, "96207", at) && oneOf(all, at + 5, "789"))
      )
    default:
      return false
  }
}

/** The mobiles of Saudi Arabia, the Emirates and Jordan without their leading 0. */
const isBareMobile = (digits: string) =>
  (digits.length === 9 && digits[0] === "5") || (digits.length === 9 && has(digits, "7") && oneOf(digits, 1, "789"))
const isNational = (digits: string) =>
  digits.length >= 9 && digits.length <= 12 && digits[0] === "0" && digits[1] !== "0"
const isGulfEight = (digits: string) => digits.length === 8 && oneOf(digits, 0, "35679")

/** A unit written right after a number (`256GB`, `5G`, `45mm`, `87%`): the number is a quantity. */
const UNIT = /(?:gb|tb|mb|kb|g|k|mm|cm|m|hz|khz|mhz|ghz|mp|w|wh|mah|inch|in|l|kg|km|fps|p|x|st|nd|rd|th|%|٪)(?![a-z])/uy

/** Groups as a phone number is grouped: a few groups, or digits one or two at a time. */
const groupedLikeAPhone = (chain: ReadonlyArray<Group>, first: number, last: number) => {
  if (last - first < 3) return true
  for (let index = first; index <= last; index++) if (chain[index]!.digits.length > 2) return false
  return true
}

const isStorageSize = (value: number) => value >= 16 && value <= 4096 && (value & (value - 1)) === 0

/** A run of groups a marketplace writes: ascending amounts or storage sizes (see the module's comment). */
const isOrdinaryList = (chain: ReadonlyArray<Group>, first: number, last: number) => {
  if (first === last) {
    const group = chain[first]!
    return group.thousands && group.digits.endsWith("000") && !group.digits.startsWith("0")
  }
  let previous = -1
  for (let index = first; index <= last; index++) {
    const { digits } = chain[index]!
    const value = Number(digits)
    const round = digits.endsWith("0") || digits.endsWith("5") || isStorageSize(value)
    if (digits.length < 2 || digits.startsWith("0") || !round || value <= previous) return false
    previous = value
  }
  return true
}

const anySoft = (chain: ReadonlyArray<Group>, first: number, last: number, soft: boolean) => {
  for (let index = first; index <= last; index++) if (chain[index]!.soft === soft) return true
  return false
}

/** Whether groups `first` to `last` of the chain, read as one number, are a phone number (see the module's comment). */
const isPhoneNumber = (chain: ReadonlyArray<Group>, first: number, last: number, all: string, callingTalk: boolean) => {
  const international = chain[first]!.plusAt !== undefined || has(all, "00")
  const significant = has(all, "00") ? all.length - 2 : all.length
  const dialled = international && significant >= 8 && significant <= 15
  const strong = isStrong(all)
  const bare = isBareMobile(all)
  const national = isNational(all)
  const eight = isGulfEight(all)
  const long = first === last && all.length >= 10
  // The digits alone rule most runs out; the groups are looked at only for the others.
  if (!(dialled || strong || bare || national || eight || long)) return false
  if (!anySoft(chain, first, last, false)) return false
  if (dialled) return true
  if (isOrdinaryList(chain, first, last)) return false
  if (strong) return true
  if (anySoft(chain, first, last, true)) return false
  if (bare) return groupedLikeAPhone(chain, first, last)
  if (national || long) return true
  return eight && (first === last || (callingTalk && groupedLikeAPhone(chain, first, last)))
}

/** The lengths a number starting with each digit may have (without `+` or `00`; see isPhoneNumber's tests). */
const LENGTHS: Record<string, readonly [number, number]> = {
  "0": [9, 13],
  "2": [12, 13],
  "3": [8, 8],
  "5": [8, 9],
  "6": [8, 8],
  "7": [8, 9],
  "9": [8, 13]
}

const DIALLED_LENGTHS = [8, LONGEST + 1] as const

/** The digits of groups `first` to `last`. */
const digitsOf = (chain: ReadonlyArray<Group>, first: number, last: number) => {
  let all = ""
  for (let index = first; index <= last; index++) all += chain[index]!.digits
  return all
}

/**
 * The parts of each phone number found in one chain of groups. From each group, the longest run that reads as a
 * number is taken, and only when it reaches past what the runs before it have: the masked parts are the same as
 * with every run. A run is only read when its length and first digits allow a phone number (most do not), so
 * the cost stays linear in the groups.
 */
const phoneSpansOf = (chain: ReadonlyArray<Group>, callingTalk: boolean, spans: Array<Span>) => {
  let covered = -1
  const lengthTo: Array<number> = []
  for (let first = 0; first < chain.length; first++) {
    const group = chain[first]!
    const second = group.digits.length > 1 ? group.digits[1] : chain[first + 1]?.digits[0]
    const dialled = group.plusAt !== undefined || (group.digits[0] === "0" && second === "0")
    const lengths = dialled ? DIALLED_LENGTHS : LENGTHS[group.digits[0]!]
    // lengthTo[k]: the digits of groups `first` to `first + k`.
    lengthTo.length = 0
    let length = 0
    for (let last = first; last < chain.length && (last === first || length <= LONGEST); last++) {
      length += chain[last]!.digits.length
      lengthTo.push(length)
    }
    for (let k = lengthTo.length - 1; k >= 0 && first + k > covered; k--) {
      const last = first + k
      const digits = lengthTo[k]!
      const possible =
        (k === 0 && digits >= 8) || (lengths !== undefined && digits >= lengths[0] && digits <= lengths[1])
      if (possible && isPhoneNumber(chain, first, last, digitsOf(chain, first, last), callingTalk)) {
        spans.push([group.plusAt ?? group.start, chain[last]!.end])
        covered = last
        break
      }
    }
  }
}

const THOUSANDS_SEPARATORS = ",.،٬'"

/** The spans of the phone numbers in `text`, a normalised text. */
export const phoneNumberSpans = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  const softSpans = datesAndTimes(text)
  const callingTalk = SPEAKS_OF_CALLING.test(text)
  let chain: Array<Group> = []
  let gapLetters = 0
  let gapWords = 0
  /** The gap's characters other than spaces, up to two (a thousands separator is one). */
  let gap = ""
  let plusAt: number | undefined
  let soft = 0

  const close = () => {
    if (chain.length > 0) phoneSpansOf(chain, callingTalk, spans)
    chain = []
  }
  const add = (digits: string, start: number, end: number, isSoft: boolean) => {
    const previous = chain.at(-1)
    const isThousands =
      previous !== undefined &&
      !isSoft &&
      !previous.soft &&
      gap.length === 1 &&
      gapWords === 0 &&
      THOUSANDS_SEPARATORS.includes(gap) &&
      text[start - 1] === gap &&
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

  let index = 0
  while (index < text.length) {
    const start = index
    const code = text.charCodeAt(index)
    while (soft < softSpans.length && softSpans[soft]![1] <= start) soft++
    const dateOrTime = softSpans[soft]
    if (dateOrTime !== undefined && start === dateOrTime[0]) {
      add(text.slice(dateOrTime[0], dateOrTime[1]).replace(/[^0-9]/gu, ""), start, dateOrTime[1], true)
      index = dateOrTime[1]
      continue
    }
    if (isDigit(code)) {
      while (index < text.length && isDigit(text.charCodeAt(index))) index++
      UNIT.lastIndex = index
      add(text.slice(start, index), start, index, UNIT.test(text))
      continue
    }
    if (isLetter(code)) {
      while (index < text.length && isLetter(text.charCodeAt(index))) index++
      const spelled = index - start > 1 && index - start < 8 ? spelledDigit(text.slice(start, index)) : undefined
      if (spelled !== undefined) {
        add(spelled, start, index, false)
        continue
      }
      gapLetters += index - start
      gapWords++
      plusAt = undefined
      if (gapLetters > GAP_LETTERS || gapWords > GAP_WORDS) close()
      continue
    }
    index++
    if (code === 0x2b) plusAt = start
    else if (code !== 0x20) plusAt = undefined
    if (code !== 0x20 && gap.length < 2) gap += text[start]
  }
  close()
  return spans
}
