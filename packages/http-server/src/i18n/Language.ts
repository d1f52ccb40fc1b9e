import type { Language } from "@talab/core"

const supported: ReadonlyArray<Language> = ["ar", "en"]

/**
 * The best supported language of an Accept-Language header by its q-values (`ar-SA` counts as `ar`),
 * or undefined when it names none of ours.
 */
const languageFromAcceptLanguage = (header: string | undefined): Language | undefined => {
  if (!header) return undefined
  let best: { language: Language; q: number; index: number } | undefined
  header.split(",").forEach((part, index) => {
    const [tag = "", ...params] = part.trim().split(";")
    const primary = tag.trim().toLowerCase().split("-")[0] as Language
    if (!supported.includes(primary)) return
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q) || q <= 0) return
    if (best === undefined || q > best.q || (q === best.q && index < best.index)) best = { language: primary, q, index }
  })
  return best?.language
}

/** The response language: the Accept-Language header, then the user's preference, then Arabic. */
export const negotiateLanguage = (header: string | undefined, userLanguage: Language | undefined): Language =>
  languageFromAcceptLanguage(header) ?? userLanguage ?? "ar"
