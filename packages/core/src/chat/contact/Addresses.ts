import { isDigit, isLetter } from "./Characters.js"
import type { Span } from "./PhoneNumbers.js"

/**
 * E-mail addresses, links, domains and messaging-app handles in a normalised text (./Normalise.ts).
 *
 * - a dot is `.` (or any look-alike, already read as `.`), ` . ` with spaces on both sides, or `dot`, `دوت`,
 *   `نقطة` spelled out, bare or in brackets; an at is `@`, or `at`, `آت`, `ات` spelled out, bare or in brackets;
 * - a domain is labels joined by dots, one of them with a letter, ending in a top-level domain: any two letters,
 *   a common generic one (`com`, `shop`, `store`, …, `كوم`), or any letters when a path (`/…`) follows;
 * - a link is anything from `http://`, `https://` or `www.` to the next space, and a domain with its path;
 * - an e-mail address is `name@anything`, and `name at domain` with a spelled or spaced at before a domain or a
 *   mail provider's name (`ali at gmail`);
 * - a handle is `@name`, and the name after a messaging app's name (`snap: ali_shop`, `انستا ali.shop`): after
 *   a colon, `@` or a word such as `حسابي` or `user` always; otherwise when it has a digit, `_` or `.`, or is not a
 *   common English word (`whatsapp me`, `on instagram too` stay).
 */

const DOT_WORD = "(?:dot|دوت|دت|نقطه|نقطة)"
const AT_WORD = "(?:at|آت|ات)"
const DOT = `(?:\\.| +\\. +| *[([{<] *${DOT_WORD} *[)\\]}>] *| +${DOT_WORD} +)`
const AT = `(?: *@ *| *[([{<] *${AT_WORD} *[)\\]}>] *| +${AT_WORD} +)`
const MAIL_PROVIDERS =
  "(?:gmail|hotmail|outlook|yahoo|icloud|live|protonmail|proton|ymail|aol|جيميل|جي ميل|هوتميل|ياهو|اوتلوك)"

const GENERIC_TLDS = new Set(
  (
    "com net org info biz app dev shop store online site xyz top club live link page art tech bio blog email " +
    "mobi name world life today social chat vip win fun space website market sale deals services company agency " +
    "digital center network media news cloud host icu buzz ink wiki gov edu int asia tel travel academy trade " +
    "cards style fashion studio design photo photos pics gallery click download works team tools zone one " +
    "كوم نت اورج سعودي"
  ).split(" ")
)

const DOTS = new RegExp(DOT, "gu")
const ATS = new RegExp(AT, "gu")
const LINK = /(?:https?|hxxps?|ftp) *: *\/\/[^ ]*/gu
const TLD_FORM = /^(?:[a-z]{2,24}|كوم|نت|اورج|سعودي)$/u
const PROVIDER = new RegExp(`^${MAIL_PROVIDERS}(?![\\p{L}\\p{N}])`, "u")
const MAY_SPELL_AT = /[ ([{<](?:at|آت|ات)[ )\]}>]/u

/** A character a domain's label or a handle is made of: a letter, a digit, `_` or `-`. */
const isLabelCode = (code: number) => isLetter(code) || isDigit(code) || code === 0x5f || code === 0x2d
/** A character of the part before an `@`: a label's, `.`, `%` or `+`. */
const isLocalCode = (code: number) => isLabelCode(code) || code === 0x2e || code === 0x25 || code === 0x2b

const labelStart = (text: string, end: number, isPart = isLabelCode) => {
  let start = end
  while (start > 0 && isPart(text.charCodeAt(start - 1))) start--
  return start
}
const labelEnd = (text: string, start: number, isPart = isLabelCode) => {
  let end = start
  while (end < text.length && isPart(text.charCodeAt(end))) end++
  return end
}
const hasLetter = (text: string, start: number, end: number) => {
  for (let index = start; index < end; index++) if (isLetter(text.charCodeAt(index))) return true
  return false
}
const pathEnd = (text: string, at: number) => {
  if (text[at] !== "/") return at
  const space = text.indexOf(" ", at)
  return space === -1 ? text.length : space
}

/**
 * The domains of the text, as a map from where each starts to where it ends: labels joined by dots (found
 * dot first, so a text with few dots costs little), up to the last label that is a top-level domain.
 */
const domainsOf = (text: string): Map<number, number> => {
  const domains = new Map<number, number>()
  let chainStart = -1
  let chainLetter = false
  let nextLabelStart = -1
  let best = -1
  const finish = () => {
    if (chainStart >= 0 && best > chainStart) domains.set(chainStart, best)
    chainStart = -1
    best = -1
  }
  for (const dot of text.matchAll(DOTS)) {
    const dotStart = dot.index
    const dotEnd = dotStart + dot[0].length
    const leftStart = labelStart(text, dotStart)
    const rightEnd = labelEnd(text, dotEnd)
    if (leftStart === dotStart || rightEnd === dotEnd) {
      finish()
      continue
    }
    if (leftStart !== nextLabelStart || chainStart < 0) {
      finish()
      const before = text.charCodeAt(leftStart - 1)
      // A label right after `@` or a dot is a mail's domain or a version number's part, looked at elsewhere.
      if (before === 0x40 || before === 0x2e) {
        nextLabelStart = -1
        continue
      }
      chainStart = leftStart
      chainLetter = false
    }
    chainLetter ||= hasLetter(text, leftStart, dotStart)
    const tld = text.slice(dotEnd, rightEnd)
    const end = pathEnd(text, rightEnd)
    const isTld = TLD_FORM.test(tld) && (end > rightEnd || GENERIC_TLDS.has(tld) || tld.length === 2)
    if (chainLetter && isTld) best = end
    nextLabelStart = dotEnd
  }
  finish()
  return domains
}

/** `name@anything` (a handle when nothing comes before the `@`), with a letter after the `@`. */
const atAddressSpans = (text: string, spans: Array<Span>) => {
  let at = text.indexOf("@")
  while (at !== -1) {
    const end = labelEnd(text, at + 1, isLocalCode)
    if (hasLetter(text, at + 1, end)) {
      const start = labelStart(text, at, isLocalCode)
      spans.push(trimmed(start, text.slice(start, end)))
    }
    at = text.indexOf("@", end > at ? end : at + 1)
  }
}

/** `name at domain` with a spaced or spelled at, before a domain or a mail provider's name. */
const spelledAddressSpans = (text: string, domains: ReadonlyMap<number, number>, spans: Array<Span>) => {
  for (const at of text.matchAll(ATS)) {
    const localStart = labelStart(text, at.index, isLocalCode)
    const after = at.index + at[0].length
    if (localStart === at.index) continue
    const domainEnd = domains.get(after) ?? (PROVIDER.exec(text.slice(after, after + 12))?.[0].length ?? -1) + after
    if (domainEnd > after) spans.push([localStart, domainEnd])
  }
}

const LONG_APPS =
  "whatsapp|whats app|whatsap|watsapp|watsap|whats|واتساب|واتس اب|واتسآب|وتساب|واتس|وتس|snapchat|snap|سناب شات|سنابي|سناب|" +
  "instagram|insta|انستقرام|انستغرام|انستجرام|انستا|انستي|telegram|tele|تليجرام|تيليجرام|تلقرام|تلغرام|تلجرام|تيلي|" +
  "tiktok|tik tok|تيك توك|تيكتوك|twitter|تويتر|facebook|فيسبوك|فيس بوك|discord|ديسكورد|signal|imo|ايمو|wechat|kik|threads"
const SHORT_APPS = "x|اكس|wa|ig|sc|tg|fb|dc|line|فيس"
const HANDLE_WORDS = "id|user|username|account|acc|handle|حسابي|حساب|يوزري|يوزر|معرفي|معرف|اسمي|باسم|على|ع|هو"
const BETWEEN = "[ :=>|/،,-]*"
const HANDLE_AFTER_APP = new RegExp(
  `(?<![\\p{L}\\p{N}])(${LONG_APPS}|${SHORT_APPS})(?![\\p{L}\\p{N}])(${BETWEEN}(?:(?:${HANDLE_WORDS})(?![\\p{L}\\p{N}])${BETWEEN})?)(@?)([a-z0-9_.]+)`,
  "gu"
)
const SHORT_APP = new RegExp(`^(?:${SHORT_APPS})$`, "u")
const EXPLICIT = new RegExp(`[:=>|]|(?:^|[^\\p{L}])(?:${HANDLE_WORDS})(?:$|[^\\p{L}])`, "u")

const COMMON_WORDS = new Set(
  (
    "me us you him her them it is are was were and or the a an to too for from with without on in at of only " +
    "please pls plz not no yes ok okay account number group call chat message msg dm app better also if so but " +
    "then now later today tomorrow yesterday tonight story stories page profile post posts ad ads link video " +
    "videos photo photos pic pics here there this that these those my your our his their i we they he she do " +
    "does did can could will would should have has had be been send sent check see saw follow add contact reach " +
    "text talk available works work web business status bio name as by just first again instead more less any " +
    "all some user username id handle search find look same new old free other another when where how what why " +
    "who thanks thank about after before because since until while even still yet ever never always maybe sure " +
    "fine good great nice very really much many lot lots way thing things stuff item items price deal offer " +
    "offers buy sell seller buyer shop store phone iphone galaxy samsung apple pro max ultra web desktop video " +
    "voice calls group groups channel chats number numbers app apps messages status"
  ).split(" ")
)

/** The span of a match, without the trailing dots, dashes and underscores that end a sentence. */
const trimmed = (start: number, matched: string): Span => [start, start + matched.replace(/[._-]+$/u, "").length]

const handleSpans = (text: string, spans: Array<Span>) => {
  for (const match of text.matchAll(HANDLE_AFTER_APP)) {
    const [whole, app, between, at, handle] = match as unknown as [string, string, string, string, string]
    const name = handle.replace(/[._-]+$/u, "")
    if (name.length < 2 || !/[a-z0-9]/u.test(name)) continue
    const explicit = at === "@" || EXPLICIT.test(between)
    const handleLike = explicit || /[0-9_.]/u.test(name) || (name.length >= 3 && !COMMON_WORDS.has(name))
    if (SHORT_APP.test(app) ? explicit : handleLike) {
      const start = match.index + whole.length - handle.length - at.length
      spans.push([start, start + at.length + name.length])
    }
  }
}

const APP_NAME = new RegExp(`${LONG_APPS}|${SHORT_APPS}`, "u")

/** The spans of the e-mail addresses, links, domains and handles in `text`, a normalised text. */
export const addressSpans = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  const domains = domainsOf(text)
  for (const [start, end] of domains) {
    // `www.` starts a link: it goes to the next space.
    const space = text.startsWith("www", start) ? text.indexOf(" ", end) : end
    spans.push(trimmed(start, text.slice(start, space === -1 ? text.length : space)))
  }
  if (text.includes("@")) atAddressSpans(text, spans)
  if (text.includes("@") || MAY_SPELL_AT.test(text)) spelledAddressSpans(text, domains, spans)
  if (text.includes("//")) for (const link of text.matchAll(LINK)) spans.push([link.index, link.index + link[0].length])
  if (APP_NAME.test(text)) handleSpans(text, spans)
  return spans
}
