/**
 * The masking corpus: ways a seller or a buyer writes a contact detail to get it past the masking, each with the
 * part that must not survive (`secret`: the digits of a number, or the name of a handle or domain), and the texts
 * a marketplace lives on, which must reach the reader untouched.
 */

/** A leak attempt: the text, and what of it must not be readable after masking. */
export interface LeakAttempt {
  readonly text: string
  readonly secret: string
  /** The sender's earlier messages in the conversation, when the attempt is spread over several. */
  readonly before?: ReadonlyArray<string>
}

const ARABIC_INDIC = "٠١٢٣٤٥٦٧٨٩"
const EASTERN_ARABIC_INDIC = "۰۱۲۳۴۵۶۷۸۹"
const DEVANAGARI = "०१२३४५६७८९"
const BENGALI = "০১২৩৪৫৬৭৮৯"
const FULL_WIDTH = "０１２３４５６７８９"
const CIRCLED = "⓪①②③④⑤⑥⑦⑧⑨"
const DINGBAT = "⓿❶❷❸❹❺❻❼❽❾"
const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉"
const ENGLISH = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
const ARABIC = ["صفر", "واحد", "اثنين", "ثلاثة", "أربعة", "خمسة", "ستة", "سبعة", "ثمانية", "تسعة"]
const ARABIC_VARIANTS = ["صفر", "واحده", "اتنين", "تلاته", "اربعه", "خمسه", "سته", "سبعه", "تمانية", "تسعه"]

const inScript = (digits: string, script: string) => [...digits].map((d) => [...script][Number(d)]).join("")
const mathematical = (digits: string, zero: number) =>
  [...digits].map((d) => String.fromCodePoint(zero + Number(d))).join("")
const eachDigitWith = (digits: string, suffix: string) => [...digits].map((d) => d + suffix).join("")
/** The number in the groups a person reads it in: 050 123 4567, or 3-3-4 from the end for longer ones. */
const grouped = (digits: string, separator: string) =>
  digits.length === 10
    ? [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)].join(separator)
    : [digits.slice(0, digits.length - 7), digits.slice(-7, -4), digits.slice(-4)].join(separator)
const between = (digits: string, ...insert: ReadonlyArray<string>) => {
  const groups = grouped(digits, "|").split("|")
  return groups.map((group, index) => (index === 0 ? group : `${insert[(index - 1) % insert.length]}${group}`)).join("")
}

/** Ways to disguise a number, by name. */
const DISGUISES: ReadonlyArray<readonly [string, (digits: string) => string]> = [
  ["plain", (d) => d],
  ["slash", (d) => grouped(d, "/")],
  ["comma", (d) => grouped(d, ",")],
  ["underscore", (d) => grouped(d, "_")],
  ["star", (d) => grouped(d, "*")],
  ["hash", (d) => grouped(d, "#")],
  ["pipe", (d) => grouped(d, "|")],
  ["colon", (d) => grouped(d, ":")],
  ["four spaces", (d) => grouped(d, "    ")],
  ["newline", (d) => grouped(d, "\n")],
  ["tab", (d) => grouped(d, "\t")],
  ["en dash", (d) => grouped(d, "–")],
  ["em dash", (d) => grouped(d, " — ")],
  ["minus sign", (d) => grouped(d, "−")],
  ["non-breaking space", (d) => grouped(d, "\u00A0")],
  ["non-breaking hyphen", (d) => grouped(d, "\u2011")],
  ["soft hyphen", (d) => grouped(d, "\u00AD")],
  ["thin space", (d) => grouped(d, "\u2009")],
  ["ideographic space", (d) => grouped(d, "\u3000")],
  ["dots", (d) => grouped(d, ".")],
  ["parentheses", (d) => `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`],
  ["LRM", (d) => eachDigitWith(d, "\u200E")],
  ["RLM", (d) => eachDigitWith(d, "\u200F")],
  ["ZWJ", (d) => eachDigitWith(d, "\u200D")],
  ["ZWNJ", (d) => eachDigitWith(d, "\u200C")],
  ["ALM", (d) => eachDigitWith(d, "\u061C")],
  ["ZWSP", (d) => eachDigitWith(d, "\u200B")],
  ["word joiner", (d) => eachDigitWith(d, "\u2060")],
  ["combining acute", (d) => eachDigitWith(d, "\u0301")],
  ["combining dot below", (d) => eachDigitWith(d, "\u0323")],
  ["keycap emoji", (d) => eachDigitWith(d, "\uFE0F\u20E3")],
  ["Arabic-Indic", (d) => inScript(d, ARABIC_INDIC)],
  ["Eastern Arabic-Indic", (d) => inScript(d, EASTERN_ARABIC_INDIC)],
  ["mixed scripts", (d) => d.slice(0, 3) + inScript(d.slice(3, 7), ARABIC_INDIC) + inScript(d.slice(7), FULL_WIDTH)],
  ["Devanagari", (d) => inScript(d, DEVANAGARI)],
  ["Bengali", (d) => inScript(d, BENGALI)],
  ["full-width", (d) => inScript(d, FULL_WIDTH)],
  ["circled", (d) => inScript(d, CIRCLED)],
  ["dingbat circled", (d) => inScript(d, DINGBAT)],
  ["superscript", (d) => inScript(d, SUPERSCRIPT)],
  ["subscript", (d) => inScript(d, SUBSCRIPT)],
  ["mathematical bold", (d) => mathematical(d, 0x1d7ce)],
  ["mathematical double-struck", (d) => mathematical(d, 0x1d7d8)],
  ["mathematical monospace", (d) => mathematical(d, 0x1d7f6)],
  ["O for 0", (d) => d.replaceAll("0", "O")],
  ["o for 0, spaced", (d) => grouped(d.replaceAll("0", "o"), " ")],
  ["words between", (d) => between(d, " then ", " and ")],
  ["Arabic words between", (d) => between(d, " ثم ", " بعدها ")],
  ["Arabic letters between", (d) => between(d, "ا", "ب")],
  ["Latin letters between", (d) => between(d, " abc ", " xyz ")],
  ["English spelled", (d) => [...d].map((x) => ENGLISH[Number(x)]).join(" ")],
  ["English spelled, dashes", (d) => [...d].map((x) => ENGLISH[Number(x)]!.toUpperCase()).join("-")],
  ["Arabic spelled", (d) => [...d].map((x) => ARABIC[Number(x)]).join(" ")],
  ["Arabic spelled, variants", (d) => [...d].map((x) => ARABIC_VARIANTS[Number(x)]).join(" ")],
  ["Arabic spelled with و", (d) => [...d].map((x, i) => (i === 0 ? "" : "و") + ARABIC[Number(x)]).join(" ")],
  ["half spelled", (d) => `${d.slice(0, 5)} ${[...d.slice(5)].map((x) => ENGLISH[Number(x)]).join(" ")}`],
  ["spaced digits", (d) => [...d].join(" ")],
  ["dash per digit", (d) => [...d].join("-")],
  ["tatweel", (d) => inScript(d, ARABIC_INDIC).split("").join("ـ")]
]

const NUMBERS = ["0501234567", "0559876543", "0531122334", "0567788990", "0543210987"]

const TEMPLATES = [
  (x: string) => x,
  (x: string) => `كلمني على ${x}`,
  (x: string) => `my number ${x} text me`,
  (x: string) => `واتساب ${x} تواصل معي هناك`,
  (x: string) => `Call ${x}`,
  (x: string) => `رقمي:\n${x}\nشكرا`
]

const phoneAttempts: ReadonlyArray<LeakAttempt> = DISGUISES.flatMap(([, disguise], index) =>
  NUMBERS.map((number, n) => ({
    text: TEMPLATES[(index + n) % TEMPLATES.length]!(disguise(number)),
    secret: number.slice(-7)
  }))
)

const internationalAttempts: ReadonlyArray<LeakAttempt> = [
  ["+966501234567", "501234567"],
  ["+966 50 123 4567", "501234567"],
  ["+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧", "501234567"],
  ["00966501234567", "501234567"],
  ["00 966 50 123 4567", "501234567"],
  ["966501234567", "501234567"],
  ["966 0501234567", "501234567"],
  ["501234567", "501234567"],
  ["+ 966 - 50 - 123 - 4567", "501234567"],
  ["＋９６６５０１２３４５６７", "501234567"],
  ["+971 50 123 4567", "501234567"],
  ["00971501234567", "501234567"],
  ["+965 9988 7766", "99887766"],
  ["99887766", "99887766"],
  ["0096599887766", "99887766"],
  ["رقمي 9988 7766", "99887766"],
  ["call me 6655 4433", "66554433"],
  ["+974 5512 3456", "55123456"],
  ["55123456", "55123456"],
  ["+973 3612 3456", "36123456"],
  ["+968 9123 4567", "91234567"],
  ["0096891234567", "91234567"],
  ["01012345678", "1012345678"],
  ["+20 101 234 5678", "1012345678"],
  ["0791234567", "791234567"],
  ["+962 79 123 4567", "791234567"],
  ["+44 7911 123456", "7911123456"],
  ["+1 (415) 555-0132", "4155550132"],
  ["0112345678", "112345678"],
  ["501,234,567", "501234567"],
  ["050 12:34 567", "501234567"],
  ["05O 123 4S67".replace("S", "5"), "501234567"],
  ["05 01 23 45 67", "501234567"],
  ["٠٥٠١٢٣٤٥٦٧ أو 0559876543", "559876543"]
].map(([text, secret]) => ({ text: text!, secret: secret! }))

const spreadAttempts: ReadonlyArray<LeakAttempt> = [
  { before: ["050 123"], text: "4567", secret: "4567" },
  { before: ["رقمي 050"], text: "١٢٣ ٤٥٦٧", secret: "4567" },
  { before: ["0501"], text: "234567", secret: "234567" },
  { before: ["zero five zero", "one two three"], text: "four five six seven", secret: "4567" },
  { before: ["+966", "50"], text: "123 4567", secret: "4567" },
  { before: ["05012"], text: "34567", secret: "34567" },
  { before: ["كلمني", "٠٥٠"], text: "١٢٣٤٥٦٧", secret: "1234567" },
  { before: ["hi", "055 987"], text: "6543", secret: "6543" }
]

const addressAttempts: ReadonlyArray<LeakAttempt> = [
  ["ali at gmail dot com", "gmail"],
  ["ali (at) gmail (dot) com", "gmail"],
  ["ali [at] gmail [dot] com", "gmail"],
  ["ali{at}gmail{dot}com", "gmail"],
  ["ali @ gmail . com", "gmail"],
  ["ali＠gmail．com", "gmail"],
  ["ali@gmail。com", "gmail"],
  ["ali@gmail", "gmail"],
  ["ALI@GMAIL.COM", "gmail"],
  ["ali@gm\u200Bail.com", "ail"],
  ["ali.shop99@hotmail.com", "shop99"],
  ["ali at hotmail", "hotmail"],
  ["راسلني ali at outlook dot sa", "outlook"],
  ["علي آت جيميل دوت كوم", "جيميل"],
  ["علي ات جيميل نقطة كوم", "جيميل"],
  ["ali (آت) gmail (نقطة) com", "gmail"],
  ["https://wa.me/966501234567", "wa.me"],
  ["wa.me/966501234567", "wa.me"],
  ["wa . me / 966501234567", "wa"],
  ["t.me/alishop", "alishop"],
  ["t . me/alishop", "alishop"],
  ["t dot me/alishop", "alishop"],
  ["t。me/alishop", "alishop"],
  ["linktr.ee/alishop", "alishop"],
  ["discord.gg/x7Kp2", "x7kp2"],
  ["bit.ly/3xYzAbC", "3xyzabc"],
  ["alishop.de", "alishop"],
  ["alishop.store", "alishop"],
  ["alishop.com.sa", "alishop"],
  ["ali-shop.online", "ali-shop"],
  ["alishop.io", "alishop"],
  ["alishop dot com", "alishop"],
  ["alishop نقطة كوم", "alishop"],
  ["alishop (dot) net", "alishop"],
  ["www.alishop.net", "alishop"],
  ["WWW . alishop . net", "alishop"],
  ["instagram.com/ali.shop", "ali.shop"],
  ["snapchat.com/add/alishop", "alishop"],
  ["youtube.com/@alishop", "alishop"],
  ["tiktok.com/@ali_shop", "ali_shop"],
  ["alishop。com", "alishop"],
  ["alishop．sa", "alishop"],
  ["hxxps://alishop.io", "alishop"],
  ["http://203.0.113.7/shop", "203"],
  ["زوروا متجري alishop.xyz", "alishop"],
  ["@ali.shop99", "ali.shop99"],
  ["@alishop", "alishop"],
  ["تابعني @ali_shop", "ali_shop"],
  ["snap: ali_shop", "ali_shop"],
  ["Snap ali.shop", "ali.shop"],
  ["snapchat alishop", "alishop"],
  ["سناب: ali_shop", "ali_shop"],
  ["سنابي ali.shop", "ali.shop"],
  ["سناب شات alishop", "alishop"],
  ["انستا ali.shop", "ali.shop"],
  ["insta: alishop", "alishop"],
  ["instagram @alishop", "alishop"],
  ["Instagram alishop", "alishop"],
  ["انستقرام: alishop", "alishop"],
  ["تليجرام: alishop", "alishop"],
  ["تلقرام alishop99", "alishop99"],
  ["telegram alishop", "alishop"],
  ["تيك توك: alishop", "alishop"],
  ["tiktok ali_shop", "ali_shop"],
  ["X: alishop", "alishop"],
  ["twitter: @ali_s", "ali_s"],
  ["تويتر alishop", "alishop"],
  ["واتس: ali_shop", "ali_shop"],
  ["WhatsApp: alishop", "alishop"],
  ["حسابي في انستا alishop", "alishop"],
  ["ig: alishop", "alishop"],
  ["snap\u200B: ali_shop", "ali_shop"],
  ["ｓｎａｐ： ａｌｉ＿ｓｈｏｐ", "ali_shop"],
  ["discord: alishop", "alishop"]
].map(([text, secret]) => ({ text: text!, secret: secret! }))

export const LEAK_ATTEMPTS: ReadonlyArray<LeakAttempt> = [
  ...phoneAttempts,
  ...internationalAttempts,
  ...spreadAttempts,
  ...addressAttempts
]

const PRODUCTS = [
  "iPhone 15 Pro Max 256GB",
  "iPhone 14 128GB",
  "iPhone 13 mini 512",
  "Galaxy S24 Ultra",
  "Galaxy A54 5G 8/256",
  "SM-S928B",
  "SM-A546E/DS",
  "A2849",
  "A2650 iPhone 14 Pro",
  "MacBook Air M2 2022 13.6",
  "iPad Pro 12.9 2021 M1",
  "Pixel 8 Pro 12GB RAM",
  "Redmi Note 13 Pro+ 5G",
  "PS5 Slim 1TB",
  "Apple Watch Series 9 45mm",
  "AirPods Pro 2",
  "Huawei P60 Pro",
  "Xiaomi 14 Ultra 16GB/512GB",
  "Dell XPS 15 9530",
  "ThinkPad X1 Carbon Gen 11",
  "Canon EOS R6 Mark II",
  "Sony WH-1000XM5",
  "Nintendo Switch OLED",
  "Galaxy Z Fold5 12/512",
  "Samsung 65 inch QN90C",
  "LG OLED55C3",
  "Toyota Camry 2020",
  "Hyundai Elantra 2019 1.6L",
  "Nikon Z6 II 24-70mm f/4",
  "ايفون 15 برو ماكس 256 جيجا",
  "جالكسي اس 24 الترا",
  "بلايستيشن 5 سليم",
  "ماك بوك اير ام 2",
  "ساعة ابل الاصدار 9 مقاس 45",
  "سماعة ابل برو 2"
]

const PRICES = [
  "1,500",
  "١٥٠٠",
  "2.5k",
  "3500",
  "٣٥٠٠",
  "4,250.50",
  "12,000",
  "150,000",
  "999",
  "45 ألف",
  "1.2k",
  "٤٬٥٠٠"
]

const ORDINARY_TEMPLATES = [
  (p: string, price: string) => `${p} السعر ${price} ريال`,
  (p: string, price: string) => `Selling ${p}, price ${price} SAR`,
  (p: string, price: string) => `${p} battery 87% price ${price}`,
  (p: string, price: string) => `عندي ${p} البطارية ٩١٪ والسعر ${price}`,
  (p: string, price: string) => `${p} - warranty 2 years - ${price} SAR`,
  (p: string, price: string) => `${p} مع ضمان سنة، ${price} ريال، التسليم 15/01/2025`,
  (p: string, price: string) => `Can do ${price} for the ${p} if you pick it up at 10:30`,
  (p: string, price: string) => `${p} متوفر، السعر ${price} قابل للتفاوض`,
  (p: string, price: string) => `I need a ${p}, budget ${price}`,
  (p: string, price: string) => `${p}\nالحالة ممتازة\nالسعر: ${price}`
]

const productTexts = PRODUCTS.flatMap((product, index) =>
  ORDINARY_TEMPLATES.filter((_, t) => (index + t) % 5 < 3).map((template, t) =>
    template(product, PRICES[(index + t) % PRICES.length]!)
  )
)

const HAND_WRITTEN = [
  "1,500",
  "١٥٠٠ ريال",
  "2.5k",
  "price 3,500 SAR",
  "1,250,000",
  "1500.50",
  "4500 - 5000",
  "10000-15000",
  "50,000 - 55,000",
  "500,000 - 550,000",
  "الميزانية بين 2000 و 3000",
  "من 5000 الى 5500",
  "between 5,000 and 5,500",
  "500 / 600 / 700",
  "128 / 256 / 512",
  "64GB, 128GB, 256GB, 512GB",
  "2025-01-15",
  "delivery on 15/01/2025",
  "delivery 05/01/2025 10:30",
  "التسليم يوم 2025/02/20 الساعة 9:15",
  "available from 8:00 to 22:00",
  "الساعة ١٠:٣٠ مساء",
  "battery 100%",
  "battery health 87%",
  "صحة البطارية ٨٩٪",
  "model 2023, 6.1 inch",
  "Version 17.2.1",
  "iOS 17.4.1",
  "v2.0",
  "warranty 2 years",
  "ضمان سنتين",
  "ضمان 3 سنوات من الوكيل",
  "warranty until 2026",
  "purchased in 2023, warranty till 03/2025",
  "Is it still available?",
  "هل الجهاز مستعمل؟",
  "I can pay 1200 today and 800 tomorrow",
  "A1 Mobile",
  "room 12 building 4",
  "e.g. the blue one",
  "i.e. unlocked",
  "1234567",
  "order 7781",
  "IMEI ends with 4821",
  "I saw your ad on Instagram yesterday",
  "whatsapp me please",
  "on instagram too",
  "no whatsapp, only here",
  "تواصل معي هنا بدون واتساب",
  "Snapchat is better than instagram for me",
  "call me at 5pm",
  "meet at the mall at 7",
  "أبي واحد 256 جيجا",
  "two iPhones, one 128 and one 256",
  "خمسة أجهزة بسعر 2500 للواحد",
  "price @ 3500",
  "قيمته 3500 @ للحبة",
  "Thanks. See you tomorrow.",
  "ok, deal. see you at 8",
  "Dimensions 146.7 x 71.5 x 7.8 mm",
  "weight 187 g",
  'Screen 6.7" 120Hz',
  "camera 48MP + 12MP + 12MP",
  "charger 20W USB-C",
  "1 year warranty + free case",
  "شاحن 25 واط",
  "السعر ٤٥٠٠ والتوصيل ٢٥ ريال",
  "11 Pro Max 64GB 2019",
  "Galaxy S23 256 vs S24 128",
  "4K 60fps",
  "2x zoom, 5x optical",
  "RTX 4070 Ti 12GB",
  "Core i7-13700H 16GB DDR5",
  "Ryzen 7 7800X3D",
  '27" 1440p 165Hz',
  "3 + 1 free",
  "الطلب رقم 10234",
  "Ref 2024-118",
  "50% off",
  "خصم ١٠٪",
  "2 years old, used 6 months",
  "Mileage 85,000 km",
  "ممشى ١٢٠ ألف كم",
  "Camry 2020 2.5L",
  "سنة الصنع 2018",
  "size 42, 43 or 44",
  "قياس 42 او 43",
  "5 stars seller",
  "Box + charger + 2 cases",
  "iPhone 12 + iPhone 13 for 3000",
  "كم آخر سعر؟",
  "What's the lowest price?",
  "Can you deliver to Riyadh?",
  "أقدر أستلم بكرة الساعة 4",
  "زيرو خدوش",
  "zero scratches, one small dent",
  "Serial hidden for privacy",
  "Pro.Max not available"
]

export const ORDINARY_TEXTS: ReadonlyArray<string> = [...productTexts, ...HAND_WRITTEN]
