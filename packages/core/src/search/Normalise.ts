import { SPELLINGS } from "./Spellings.js"

/*
 * How search reads text (docs/DECISIONS.md, "Search"): the same steps for the text of a request, for `q` and for
 * an alert rule's keywords, so a word typed any of the ways people type it lands on one form.
 */

/** Letters mapped one to one before anything else: hamza forms, alef maqsura, teh marbuta, Persian letters. */
const LETTERS: Readonly<Record<string, string>> = {
  أ: "ا",
  إ: "ا",
  آ: "ا",
  ٱ: "ا",
  ى: "ي",
  ی: "ي",
  ة: "ه",
  ؤ: "و",
  ئ: "ي",
  ک: "ك"
}

/*
 * Dropped code points: tashkeel (fathatan to sukun, maddah and hamza marks, superscript alef, Quranic marks),
 * tatweel, the combining marks left by decomposing Latin letters (é is e and U+0301), and the joiners, which are
 * not separators inside a word (U+200C/U+200D, Persian and Arabic ligature control; the soft hyphen).
 */
const DROPPED = /[\u064B-\u065F]|\u0670|[\u06D6-\u06ED]|[\u0300-\u036F]|\u0640|\u200C|\u200D|\u00AD/g
const withoutDropped = (text: string) => text.replace(DROPPED, "")
const ARABIC_DIGIT = /[\u0660-\u0669]/g
const PERSIAN_DIGIT = /[\u06F0-\u06F9]/g
const LETTER_MAP = new RegExp(`[${Object.keys(LETTERS).join("")}]`, "g")
// A word: a run of digits, of Arabic letters or of other letters (Latin and the rest); anything else separates.
const WORD = /\p{Nd}+|(?:(?=\p{Script=Arabic})\p{L})+|(?:(?!\p{Script=Arabic})\p{L})+/gu

/** The longest word search reads; longer runs are cut (no product or place name is longer). */
export const MAX_WORD_LENGTH = 40

/**
 * Text as search compares it: case folded, Arabic diacritics and tatweel removed, hamza forms of alef as
 * alef, ى as ي, ة as ه, ؤ as و, ئ as ي, Arabic-Indic and Persian digits as 0-9, Latin accents dropped.
 */
export const normaliseText = (text: string): string =>
  withoutDropped(
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(LETTER_MAP, (letter) => LETTERS[letter]!)
      .normalize("NFD")
  )
    .replace(ARABIC_DIGIT, (digit) => String(digit.charCodeAt(0) - 0x0660))
    .replace(PERSIAN_DIGIT, (digit) => String(digit.charCodeAt(0) - 0x06f0))
    .normalize("NFC")

/**
 * The words of a text, normalised: punctuation and spaces separate words, and so does a change between digits
 * and letters or between Arabic and Latin letters ("iphone13" and "١٣برو" are two words each).
 */
export const wordsOf = (text: string): Array<string> =>
  (normaliseText(text).match(WORD) ?? []).map((word) =>
    // Code units bound code points: only a long word is split into code points to be cut.
    word.length <= MAX_WORD_LENGTH ? word : [...word].slice(0, MAX_WORD_LENGTH).join("")
  )

interface Spelling {
  readonly words: ReadonlyArray<string>
  readonly canonical: string
}

/**
 * Every spelling of the table as normalised words, by its first word (a text's words are looked up, not compared
 * with the whole table), longest first so "ون بلس" wins over "بلس".
 */
const spellingsByFirstWord: ReadonlyMap<string, ReadonlyArray<Spelling>> = (() => {
  const byFirst = new Map<string, Array<Spelling>>()
  for (const { canonical, spellings } of SPELLINGS) {
    for (const spelling of [canonical, ...spellings]) {
      const words = wordsOf(spelling)
      if (words.length === 0) continue
      const list = byFirst.get(words[0]!) ?? []
      list.push({ words, canonical })
      byFirst.set(words[0]!, list)
    }
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length)
  return byFirst
})()

/** The one-word spellings of each canonical word, normalised (what a request also stores, for typos in either script). */
const spellingsOf: ReadonlyMap<string, ReadonlyArray<string>> = new Map(
  SPELLINGS.map(({ canonical, spellings }) => [
    canonical,
    [...new Set([canonical, ...spellings.flatMap((spelling) => wordsOf(spelling).join(""))])]
  ])
)

/**
 * The words of a text as search means them: normalised, and any spelling of the table (one or more words)
 * replaced by its canonical word, so "آيفون ١٣ برو" and "iPhone13 Pro" both read `iphone 13 pro`.
 */
export const searchWordsOf = (text: string): Array<string> => {
  const words = wordsOf(text)
  const out: Array<string> = []
  for (let i = 0; i < words.length; ) {
    const found = spellingsByFirstWord
      .get(words[i]!)
      ?.find((spelling) => spelling.words.every((word, offset) => words[i + offset] === word))
    if (found) {
      out.push(found.canonical)
      i += found.words.length
    } else {
      out.push(words[i]!)
      i += 1
    }
  }
  return out
}

/** The canonical word a spelling of the table means (`"سامسونغ"` → `"samsung"`), if it is one. */
export const canonicalOf = (spelling: string): string | undefined => {
  const words = searchWordsOf(spelling)
  return words.length === 1 && spellingsOf.has(words[0]!) ? words[0] : undefined
}

/**
 * What a stored text is found by: its search words, and for each canonical word every one-word spelling of it
 * in the table, so a typo in the Arabic spelling ("سامسونح") is one typo from a stored word as much as a typo in
 * the Latin one is.
 */
export const indexWordsOf = (...texts: ReadonlyArray<string | null | undefined>): Array<string> => {
  const words = new Set<string>()
  for (const text of texts) {
    if (text == null) continue
    for (const word of searchWordsOf(text)) {
      for (const spelling of spellingsOf.get(word) ?? [word]) words.add(spelling)
    }
  }
  return [...words].sort()
}
