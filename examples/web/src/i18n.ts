/*
 * The page's language, kept in localStorage (first visit: the browser's), laid out right to left in Arabic, and
 * its numbers, money and dates in that language's forms.
 */
import { fillIn, type Language, type WordKey, words } from "./words.js"

export type { WordKey } from "./words.js"

const stored = localStorage.getItem("talab.language")
/** The page's language: the one chosen before, else the browser's first, else Arabic (the API's default). */
export const language: Language =
  stored === "ar" || stored === "en" ? stored : navigator.language.startsWith("en") ? "en" : "ar"
const locale = language === "ar" ? "ar" : "en-GB"

/** Saves the other language and reloads: every screen is drawn again, and the socket reconnects speaking it. */
export const switchLanguage = () => {
  localStorage.setItem("talab.language", language === "ar" ? "en" : "ar")
  location.reload()
}

/** A word of the page, with `{name}` placeholders filled in. */
export const t = (key: WordKey, params: Record<string, string | number> = {}) => fillIn(words[key][language], params)

export const money = (amount: number) =>
  new Intl.NumberFormat(locale, {
    style: "currency",
    currency: "SAR",
    minimumFractionDigits: 0,
    maximumFractionDigits: 2
  }).format(amount)
export const number = (value: number) => new Intl.NumberFormat(locale).format(value)
export const percent = (rate: number) => new Intl.NumberFormat(locale, { style: "percent" }).format(rate)
export const dateTime = (iso: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso))
export const date = (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(new Date(iso))

/** Lays the page out in its language: `lang` and `dir` on <html>, and every `data-t` label in the HTML. */
export const applyLanguage = () => {
  document.documentElement.lang = language
  document.documentElement.dir = language === "ar" ? "rtl" : "ltr"
  for (const element of document.querySelectorAll<HTMLElement>("[data-t]")) {
    element.textContent = t(element.dataset.t as WordKey)
  }
  for (const element of document.querySelectorAll<HTMLInputElement>("[data-t-placeholder]")) {
    element.placeholder = t(element.dataset.tPlaceholder as WordKey)
  }
}
