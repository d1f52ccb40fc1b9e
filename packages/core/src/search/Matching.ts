import { searchWordsOf } from "./Normalise.js"

/** Query words this long or longer also match the words they start (`iph` finds `iphone`). */
export const PREFIX_MIN_LENGTH = 3
/** Query words this long or longer also match words one typo away (`samsumg` finds `samsung`). */
export const TYPO_MIN_LENGTH = 5

/** How a query word met a word: the same word, the start of it, or one typo away. */
export type WordMatch = "exact" | "prefix" | "typo"

const lengthOf = (word: string) => [...word].length

/**
 * Whether `a` and `b` are at most one typo apart: one letter inserted, deleted or replaced, or two adjacent
 * letters swapped (the optimal string alignment distance is at most 1).
 */
export const withinOneTypo = (a: string, b: string): boolean => {
  const x = [...a]
  const y = [...b]
  if (Math.abs(x.length - y.length) > 1) return false
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  if (i === x.length && i === y.length) return true
  const rest = (m: number, n: number) => x.slice(m).join("") === y.slice(n).join("")
  if (x.length === y.length) return rest(i + 1, i + 1) || (x[i] === y[i + 1] && x[i + 1] === y[i] && rest(i + 2, i + 2))
  return x.length > y.length ? rest(i + 1, i) : rest(i, i + 1)
}

/** How query word `query` matches the stored word `word`, if it does. */
export const matchOf = (query: string, word: string): WordMatch | undefined => {
  if (query === word) return "exact"
  const length = lengthOf(query)
  if (length >= PREFIX_MIN_LENGTH && word.startsWith(query)) return "prefix"
  if (length >= TYPO_MIN_LENGTH && withinOneTypo(query, word)) return "typo"
  return undefined
}

/** The best way `query` matches any of `words` (exact before prefix before typo), if it does. */
export const bestMatchOf = (query: string, words: ReadonlyArray<string>): WordMatch | undefined => {
  let best: WordMatch | undefined
  for (const word of words) {
    const match = matchOf(query, word)
    if (match === "exact") return match
    if (match === "prefix" || (match === "typo" && best === undefined)) best = match
  }
  return best
}

/** The words of a search (`q` or an alert rule's keywords), deduplicated; none when it is only separators. */
export const queryWordsOf = (...texts: ReadonlyArray<string>): Array<string> => [
  ...new Set(texts.flatMap(searchWordsOf))
]

/** Whether every word of `query` matches one of a request's index words (`indexWordsOf`). */
export const matchesAll = (query: ReadonlyArray<string>, indexWords: ReadonlyArray<string>): boolean =>
  query.every((word) => bestMatchOf(word, indexWords) !== undefined)

/**
 * A word with one letter deleted, each way: two words are one typo apart only if they are equal, one is a
 * deletion of the other, or they share a deletion, so a vocabulary keyed by deletions finds a word's typo
 * candidates by equality (the candidates are then checked with {@link withinOneTypo}).
 */
export const deletionsOf = (word: string): Array<string> => {
  const letters = [...word]
  return [...new Set(letters.map((_, i) => [...letters.slice(0, i), ...letters.slice(i + 1)].join("")))]
}

/**
 * How a request ranks for a search, best first when compared with {@link compareRelevance}: words matched
 * exactly, then words matched without a typo, then words found in the brand and model.
 */
export interface Relevance {
  readonly exact: number
  readonly untypoed: number
  readonly inTitle: number
}

/** The relevance of a request with `titleWords` (brand and model) and `indexWords` (everything) for `query`. */
export const relevanceOf = (
  query: ReadonlyArray<string>,
  indexWords: ReadonlyArray<string>,
  titleWords: ReadonlyArray<string>
): Relevance => {
  let exact = 0
  let untypoed = 0
  let inTitle = 0
  for (const word of query) {
    const match = bestMatchOf(word, indexWords)
    if (match === "exact") exact++
    if (match === "exact" || match === "prefix") untypoed++
    if (bestMatchOf(word, titleWords) !== undefined) inTitle++
  }
  return { exact, untypoed, inTitle }
}

/** Orders relevances best first (a negative number when `a` ranks before `b`). */
export const compareRelevance = (a: Relevance, b: Relevance): number =>
  b.exact - a.exact || b.untypoed - a.untypoed || b.inTitle - a.inTitle
