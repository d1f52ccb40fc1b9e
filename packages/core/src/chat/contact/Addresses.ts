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
const LABEL = "[\\p{L}\\p{N}_-]+"
const TLD = "(?:[a-z]{2,24}|كوم|نت|اورج|سعودي)"
const NOT_IN_WORD_BEFORE = "(?<![\\p{L}\\p{N}_@.-])"
const NOT_IN_WORD_AFTER = "(?![\\p{L}\\p{N}_-])"
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

const DOMAIN = new RegExp(`${NOT_IN_WORD_BEFORE}((?:${LABEL}${DOT})+)(${TLD})${NOT_IN_WORD_AFTER}(/[^ ]*)?`, "gu")
const LINK = new RegExp(`(?:https?|hxxps?|ftp) *: *//[^ ]*|${NOT_IN_WORD_BEFORE}www${DOT}[^ ]+`, "gu")
const AT_ADDRESS = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]*@[\p{L}\p{N}_.-]*\p{L}[\p{L}\p{N}_.-]*/gu
const SPELLED_ADDRESS = new RegExp(
  `${NOT_IN_WORD_BEFORE}[\\p{L}\\p{N}._%+-]+${AT}(?:(?:${LABEL}${DOT})+${TLD}|${MAIL_PROVIDERS})${NOT_IN_WORD_AFTER}`,
  "gu"
)

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

const isTopLevelDomain = (tld: string, hasPath: boolean) =>
  hasPath || GENERIC_TLDS.has(tld) || /^[a-z]{2}$/u.test(tld)

const domainSpans = (text: string, spans: Array<Span>) => {
  for (const match of text.matchAll(DOMAIN)) {
    const [whole, labels, tld, path] = match as unknown as [string, string, string, string | undefined]
    if (/\p{L}/u.test(labels.replace(new RegExp(DOT, "gu"), "")) && isTopLevelDomain(tld, path !== undefined)) {
      spans.push(trimmed(match.index, whole))
    }
  }
}

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

/** The spans of the e-mail addresses, links, domains and handles in `text`, a normalised text. */
export const addressSpans = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  if (text.includes("@")) {
    for (const match of text.matchAll(AT_ADDRESS)) spans.push(trimmed(match.index, match[0]))
  }
  for (const match of text.matchAll(SPELLED_ADDRESS)) spans.push(trimmed(match.index, match[0]))
  for (const match of text.matchAll(LINK)) spans.push([match.index, match.index + match[0].length])
  domainSpans(text, spans)
  handleSpans(text, spans)
  return spans
}
