import * as Schema from "effect/Schema"
import { fieldRule, Text } from "../shared/Fields.js"
import { queryWordsOf } from "./Matching.js"

/** The orders of a request list: by relevance to `q`, newest first, highest budget first, lowest budget first. */
export const SearchSort = Schema.Literal("relevance", "newest", "budget_desc", "budget_asc")
export type SearchSort = typeof SearchSort.Type

/** A text that has at least one word search can read (not only punctuation and spaces). */
const withWords = (max: number) =>
  Text(1, max).pipe(Schema.filter((text) => queryWordsOf(text).length > 0, fieldRule("search_no_words")))

/** A search text: 1 to 100 characters with at least one word; every word must match. */
export const SearchText = withWords(100)

/** Most keywords one alert rule may have. */
export const MAX_ALERT_KEYWORDS = 5

/** An alert rule's keyword: 1 to 50 characters with at least one word. */
export const AlertKeyword = withWords(50)
