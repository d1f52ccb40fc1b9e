import { describe, expect, it } from "vitest"
import {
  bestMatchOf,
  compareRelevance,
  deletionsOf,
  indexWordsOf,
  matchesAll,
  matchOf,
  normaliseText,
  queryWordsOf,
  relevanceOf,
  SPELLINGS,
  searchWordsOf,
  withinOneTypo,
  wordsOf
} from "../../src/index.js"

describe("normaliseText", () => {
  it.each([
    ["IPHONE", "iphone"],
    ["أإآٱا", "ااااا"],
    ["مستشفى", "مستشفي"],
    ["مكتبة", "مكتبه"],
    ["مؤمن", "مومن"],
    ["مسائل", "مسايل"],
    ["مُسْتَعْمَلٌ", "مستعمل"],
    ["بـــرو", "برو"],
    ["٠١٢٣٤٥٦٧٨٩", "0123456789"],
    ["۰۱۲۳۴۵۶۷۸۹", "0123456789"],
    ["Café", "cafe"],
    ["ی ک", "ي ك"]
  ])("%s reads %s", (text, expected) => {
    expect(normaliseText(text)).toBe(expected)
  })
})

describe("wordsOf", () => {
  it.each([
    ["iPhone13 Pro", ["iphone", "13", "pro"]],
    ["١٣برو", ["13", "برو"]],
    ["أيفون١٣ بـرو", ["ايفون", "13", "برو"]],
    ["S-23, ultra!", ["s", "23", "ultra"]],
    ["iphoneايفون", ["iphone", "ايفون"]],
    ["  ...،؟  ", []],
    ["ـــ", []]
  ])("%s is %j", (text, expected) => {
    expect(wordsOf(text)).toEqual(expected)
  })

  it("cuts words at 40 characters", () => {
    expect(wordsOf("a".repeat(60))).toEqual(["a".repeat(40)])
  })
})

describe("the spellings table", () => {
  const entries = SPELLINGS.map(({ canonical, spellings }) => ({ canonical, all: [canonical, ...spellings] }))

  it("has every pair the contract names", () => {
    const pairs: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["Apple", ["ابل"]],
      ["iPhone", ["ايفون"]],
      ["iPad", ["ايباد"]],
      ["AirPods", ["ايربودز"]],
      ["Samsung", ["سامسونج", "سامسونغ"]],
      ["Galaxy", ["جالكسي", "جالاكسي"]],
      ["Huawei", ["هواوي"]],
      ["Xiaomi", ["شاومي", "شاومى"]],
      ["Redmi", ["ريدمي"]],
      ["Oppo", ["اوبو"]],
      ["Vivo", ["فيفو"]],
      ["Honor", ["هونر", "هونور"]],
      ["Nokia", ["نوكيا"]],
      ["OnePlus", ["ون بلس"]],
      ["Google", ["جوجل"]],
      ["Pixel", ["بكسل"]],
      ["Realme", ["ريلمي"]],
      ["Infinix", ["انفنكس"]],
      ["Tecno", ["تكنو"]],
      ["Pro", ["برو"]],
      ["Max", ["ماكس"]],
      ["Plus", ["بلس"]],
      ["Ultra", ["الترا"]],
      ["Mini", ["ميني"]],
      ["Lite", ["لايت"]],
      ["Note", ["نوت"]],
      ["Fold", ["فولد"]],
      ["Flip", ["فليب"]],
      ["Edge", ["ايدج"]]
    ]
    for (const [latin, arabic] of pairs) {
      for (const spelling of arabic) {
        // Each direction: the Arabic spelling finds the Latin text, and the Latin spelling the Arabic text.
        expect(matchesAll(queryWordsOf(spelling), indexWordsOf(latin)), `${spelling} finds ${latin}`).toBe(true)
        expect(matchesAll(queryWordsOf(latin), indexWordsOf(spelling)), `${latin} finds ${spelling}`).toBe(true)
        expect(searchWordsOf(spelling)).toEqual(searchWordsOf(latin))
      }
    }
  })

  it("reads every spelling of an entry as its canonical word, each finding the others both ways", () => {
    for (const { canonical, all } of entries) {
      for (const spelling of all) {
        expect(searchWordsOf(spelling), spelling).toEqual([canonical])
        for (const other of all) {
          expect(matchesAll(queryWordsOf(spelling), indexWordsOf(other)), `${spelling} finds ${other}`).toBe(true)
        }
      }
    }
  })

  it("keeps entries apart: no spelling of one finds another's text", () => {
    for (const a of entries) {
      for (const b of entries) {
        if (a === b) continue
        for (const spelling of a.all) {
          expect(matchesAll(queryWordsOf(spelling), indexWordsOf(b.canonical)), `${spelling} vs ${b.canonical}`).toBe(
            false
          )
        }
      }
    }
  })

  it("stores the one-word spellings of a canonical word beside it, so typos in either script match", () => {
    expect(indexWordsOf("Samsung")).toEqual(expect.arrayContaining(["samsung", "سامسونج", "سامسونغ"]))
    expect(matchesAll(queryWordsOf("سامسونح"), indexWordsOf("Samsung"))).toBe(true)
    expect(matchesAll(queryWordsOf("samsunj"), indexWordsOf("سامسونج"))).toBe(true)
  })

  it("reads two-word spellings as one word, the longest spelling first", () => {
    expect(searchWordsOf("ون بلس 11")).toEqual(["oneplus", "11"])
    expect(searchWordsOf("one plus")).toEqual(["oneplus"])
    expect(searchWordsOf("ايفون 15 بلس")).toEqual(["iphone", "15", "plus"])
  })
})

describe("matching", () => {
  it.each([
    ["iphone", "iphone", "exact"],
    ["iph", "iphone", "prefix"],
    ["ip", "iphone", undefined],
    ["galaxi", "galaxy", "typo"],
    ["galxy", "galaxy", "typo"],
    ["gaalxy", "galaxy", "typo"],
    ["galaxyy", "galaxy", "typo"],
    ["galx", "galaxy", undefined],
    ["glxay", "galaxy", undefined],
    ["nokai", "nokia", "typo"],
    ["noki", "nokia", "prefix"],
    ["noka", "nokia", undefined]
  ] as const)("%s meets %s: %s", (query, word, expected) => {
    expect(matchOf(query, word)).toBe(expected)
  })

  it("takes the best match of a word among many", () => {
    expect(bestMatchOf("galaxy", ["galaxi", "galaxys", "galaxy"])).toBe("exact")
    expect(bestMatchOf("galaxy", ["galaxi", "galaxys"])).toBe("prefix")
    expect(bestMatchOf("galaxy", ["galaxi"])).toBe("typo")
    expect(bestMatchOf("galaxy", ["nokia"])).toBeUndefined()
  })

  it("finds one typo by a shared deletion, and withinOneTypo is the judge", () => {
    const words = ["samsung", "samsnug", "samsun", "samsungs", "sasmung", "smasung"]
    for (const word of words) {
      const shared =
        word === "samsung" ||
        deletionsOf(word).includes("samsung") ||
        deletionsOf("samsung").includes(word) ||
        deletionsOf(word).some((d) => deletionsOf("samsung").includes(d))
      expect(shared, word).toBe(true)
      expect(withinOneTypo("samsung", word), word).toBe(true)
    }
    expect(withinOneTypo("abc", "bca")).toBe(false)
    expect(withinOneTypo("ابل", "ابل")).toBe(true)
  })

  it("ranks exact matches first, then untypoed, then brand and model", () => {
    const query = queryWordsOf("galaxy")
    const rank = (title: string, notes: string | null) =>
      relevanceOf(query, indexWordsOf(title, notes), indexWordsOf(title))
    const ranked = [
      ["typo", rank("Samsung Galaxi", null)],
      ["notes", rank("Nokia G21", "galaxy case")],
      ["prefix", rank("Samsung Galaxys", null)],
      ["title", rank("Samsung Galaxy", null)]
    ] as const
    expect([...ranked].sort((a, b) => compareRelevance(a[1], b[1])).map(([name]) => name)).toEqual([
      "title",
      "notes",
      "prefix",
      "typo"
    ])
  })

  it("needs every word of a query (AND), deduplicated", () => {
    expect(queryWordsOf("iphone iPhone آيفون")).toEqual(["iphone"])
    expect(matchesAll(queryWordsOf("iphone 13"), indexWordsOf("iPhone 13 Pro"))).toBe(true)
    expect(matchesAll(queryWordsOf("iphone 14"), indexWordsOf("iPhone 13 Pro"))).toBe(false)
    expect(queryWordsOf("!!!")).toEqual([])
  })
})
