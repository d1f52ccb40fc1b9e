/**
 * The form contact details are looked for in: each character of the text read as what it looks like, so that a
 * detail written with look-alike or invisible characters reads as the plain one. Every character of the
 * normalised text remembers the part of the original it came from, so what is found in it can be masked in the
 * original.
 *
 * - NFKC per character: full-width, mathematical, circled, superscript and other compatibility forms become
 *   their plain letters and digits;
 * - every Unicode decimal digit (`\p{Nd}`: Arabic-Indic, Devanagari, …) becomes its ASCII digit, and so do the
 *   dingbat circled digits NFKC leaves alone;
 * - format and invisible characters (LRM, RLM, ALM, ZWJ, ZWNJ, ZWSP, word joiner, soft hyphen, BOM, bidi
 *   controls), combining marks (accents, keycap, variation selectors, Arabic vowel signs) and the tatweel are
 *   dropped;
 * - every space, tab and line break becomes ` `, every dash `-`, every full stop look-alike (`。`, `．`, `․`, `۔`)
 *   `.`; letters are lower-cased;
 * - an `o` inside a run of digits is read as `0` (`O5O1234567`).
 */
export interface Normalised {
  /** The normalised text. */
  readonly text: string
  /** Where the original character the `index`th character of `text` came from starts. */
  readonly from: (index: number) => number
  /** Where the original character the `index`th character of `text` came from ends. */
  readonly to: (index: number) => number
}

const DROPPED = /^[\p{Cf}\p{M}\u0640\u115F\u1160\u3164\uFFA0]$/u
const SPACE = /^[\s\p{Zs}\p{Zl}\p{Zp}]$/u
const DASH = /^[\p{Pd}\u2212\u2796\uFE63\uFF0D]$/u
const FULL_STOP = /^[\u3002\uFF0E\uFF61\u2024\u06D4\u2E3C\uFE52]$/u
const DECIMAL_DIGIT = /^\p{Nd}$/u

/** Circled digits NFKC keeps as they are, by their first code point and the value it stands for. */
const DINGBAT_DIGITS: ReadonlyArray<readonly [first: number, last: number, firstValue: number]> = [
  [0x2776, 0x277e, 1],
  [0x2780, 0x2788, 1],
  [0x278a, 0x2792, 1],
  [0x24f5, 0x24fd, 1],
  [0x24ff, 0x24ff, 0],
  [0x1f10b, 0x1f10c, 0]
]

/** The value of a decimal digit: Unicode keeps each script's digits as ten code points in a row, 0 first. */
const digitValue = (codePoint: number): number => {
  let before = 0
  // A script whose block of digits follows another's (the mathematical digits) counts on in tens.
  while (before < 100 && DECIMAL_DIGIT.test(String.fromCodePoint(codePoint - before - 1))) before++
  return before % 10
}

const dingbatDigit = (codePoint: number): string | undefined => {
  for (const [first, last, firstValue] of DINGBAT_DIGITS) {
    if (codePoint >= first && codePoint <= last) return String(codePoint - first + firstValue)
  }
  return undefined
}

/** What one character reads as (empty when it is dropped); computed once per character outside the fast path. */
const readAsSlow = (character: string): string => {
  if (DROPPED.test(character)) return ""
  if (SPACE.test(character)) return " "
  if (DASH.test(character)) return "-"
  if (FULL_STOP.test(character)) return "."
  const codePoint = character.codePointAt(0)!
  if (DECIMAL_DIGIT.test(character)) return String(digitValue(codePoint))
  const dingbat = dingbatDigit(codePoint)
  if (dingbat !== undefined) return dingbat
  const compatible = character.normalize("NFKC")
  if (compatible === character) return character.toLowerCase()
  let read = ""
  for (const part of compatible) read += part === character ? part.toLowerCase() : readAs(part)
  return read
}

const cache = new Map<number, string>()

const readAs = (character: string): string => {
  const codePoint = character.codePointAt(0)!
  let read = cache.get(codePoint)
  if (read === undefined) {
    read = readAsSlow(character)
    cache.set(codePoint, read)
  }
  return read
}

/** Printable ASCII and the Arabic letters, the characters almost every message is made of, read directly. */
const readDirectly = (code: number): string | undefined => {
  if (code >= 0x61 && code <= 0x7a) return String.fromCharCode(code)
  if (code >= 0x41 && code <= 0x5a) return String.fromCharCode(code + 32)
  if (code >= 0x20 && code < 0x7f) return String.fromCharCode(code)
  if (code === 0x0a || code === 0x0d || code === 0x09) return " "
  if (code >= 0x0621 && code <= 0x063a) return String.fromCharCode(code)
  if (code >= 0x0641 && code <= 0x064a) return String.fromCharCode(code)
  if (code >= 0x0660 && code <= 0x0669) return String.fromCharCode(code - 0x0660 + 0x30)
  if (code >= 0x06f0 && code <= 0x06f9) return String.fromCharCode(code - 0x06f0 + 0x30)
  return undefined
}

/** A run of digits and `o`s not inside a word: its `o`s read as `0` when it holds a digit. */
const DIGITS_AND_OS = /(?<![a-z0-9])[0-9o]*o[0-9o]*/gu
const HAS_DIGIT = /[0-9]/u

const zerosForOs = (text: string) =>
  text.includes("o")
    ? text.replace(DIGITS_AND_OS, (run) => (HAS_DIGIT.test(run) ? run.replaceAll("o", "0") : run))
    : text

/** Printable ASCII, line breaks and the Arabic letters and digits: each reads as one character, directly. */
const SIMPLE = /^[\x20-\x7e\n\r\t\u0621-\u063a\u0641-\u064a\u0660-\u0669\u06f0-\u06f9]*$/u
const ARABIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/gu
const LINE_BREAK = /[\n\r\t]/gu

const simpleForm = (text: string): Normalised => ({
  text: zerosForOs(
    text
      .toLowerCase()
      .replace(LINE_BREAK, " ")
      .replace(ARABIC_DIGIT, (digit) => {
        const code = digit.charCodeAt(0)
        return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660)
      })
  ),
  from: (index) => index,
  to: (index) => index + 1
})

/** The normalised form of `text` (see the module's comment). */
export const normalise = (text: string): Normalised => {
  if (SIMPLE.test(text)) return simpleForm(text)
  let normalised = ""
  let from = new Int32Array(text.length + 16)
  let to = new Int32Array(text.length + 16)
  let index = 0
  while (index < text.length) {
    const code = text.charCodeAt(index)
    const wide = code >= 0xd800 && code <= 0xdbff && index + 1 < text.length
    const end = index + (wide ? 2 : 1)
    const read = (!wide && readDirectly(code)) || readAs(text.slice(index, end))
    if (normalised.length + read.length > from.length) {
      const grown = (length: number) => (old: Int32Array) => {
        const larger = new Int32Array(length)
        larger.set(old)
        return larger
      }
      const length = 2 * from.length + read.length
      from = grown(length)(from)
      to = grown(length)(to)
    }
    for (let at = normalised.length; at < normalised.length + read.length; at++) {
      from[at] = index
      to[at] = end
    }
    normalised += read
    index = end
  }
  const starts = from
  const ends = to
  return { text: zerosForOs(normalised), from: (at) => starts[at]!, to: (at) => ends[at]! }
}
