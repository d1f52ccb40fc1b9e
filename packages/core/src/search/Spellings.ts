/**
 * The brand and model words people write in Arabic letters as well as in Latin ones (docs/DECISIONS.md,
 * "Search"). Each entry is one word as search knows it (`canonical`, lowercase Latin) with every spelling that
 * means it, in either script; a spelling may be two words ("ون بلس"). Spellings are written as people type them:
 * they go through the same normalisation as the searched text (hamza forms, ى, ة, case), so "آيفون" and
 * "ايفون" need not both be listed. To teach search a new word, add an entry or a spelling here; nothing else
 * changes, and stored requests learn it when their search words are rebuilt (a migration that rewrites them).
 */
export const SPELLINGS: ReadonlyArray<{ readonly canonical: string; readonly spellings: ReadonlyArray<string> }> = [
  // Brands
  { canonical: "apple", spellings: ["Apple", "ابل", "آبل", "أبل"] },
  { canonical: "iphone", spellings: ["iPhone", "ايفون", "آيفون", "أيفون", "اي فون"] },
  { canonical: "ipad", spellings: ["iPad", "ايباد", "آيباد", "أيباد", "اي باد"] },
  { canonical: "airpods", spellings: ["AirPods", "air pods", "ايربودز", "ايربود", "اير بودز", "ايربودس"] },
  { canonical: "samsung", spellings: ["Samsung", "سامسونج", "سامسونغ", "سامسونق", "سامسنج"] },
  { canonical: "galaxy", spellings: ["Galaxy", "جالكسي", "جالاكسي", "جلاكسي", "قالاكسي", "غالاكسي", "جالكسى"] },
  { canonical: "huawei", spellings: ["Huawei", "هواوي", "هواوى"] },
  { canonical: "xiaomi", spellings: ["Xiaomi", "شاومي", "شاومى", "شياومي"] },
  { canonical: "redmi", spellings: ["Redmi", "ريدمي", "ردمي"] },
  { canonical: "oppo", spellings: ["Oppo", "اوبو", "أوبو"] },
  { canonical: "vivo", spellings: ["Vivo", "فيفو"] },
  { canonical: "honor", spellings: ["Honor", "هونر", "هونور", "اونر"] },
  { canonical: "nokia", spellings: ["Nokia", "نوكيا"] },
  { canonical: "oneplus", spellings: ["OnePlus", "one plus", "ون بلس", "ونبلس", "وان بلس"] },
  { canonical: "google", spellings: ["Google", "جوجل", "قوقل", "غوغل"] },
  { canonical: "pixel", spellings: ["Pixel", "بكسل", "بيكسل"] },
  { canonical: "realme", spellings: ["Realme", "ريلمي", "ريل مي"] },
  { canonical: "infinix", spellings: ["Infinix", "انفنكس", "انفينكس"] },
  { canonical: "tecno", spellings: ["Tecno", "تكنو", "تيكنو"] },
  // Model words
  { canonical: "pro", spellings: ["Pro", "برو"] },
  { canonical: "max", spellings: ["Max", "ماكس"] },
  { canonical: "plus", spellings: ["Plus", "بلس"] },
  { canonical: "ultra", spellings: ["Ultra", "الترا", "ألترا"] },
  { canonical: "mini", spellings: ["Mini", "ميني"] },
  { canonical: "lite", spellings: ["Lite", "لايت"] },
  { canonical: "note", spellings: ["Note", "نوت"] },
  { canonical: "fold", spellings: ["Fold", "فولد"] },
  { canonical: "flip", spellings: ["Flip", "فليب"] },
  { canonical: "edge", spellings: ["Edge", "ايدج", "إيدج"] },
  { canonical: "mate", spellings: ["Mate", "ميت", "مايت"] }
]
