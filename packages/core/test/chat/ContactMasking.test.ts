import { describe, expect, it } from "vitest"
import {
  hasContactDetail,
  MASK,
  maskContacts,
  maskContactsAmong,
  neighboursOf,
  SPREAD_MINUTES
} from "../../src/chat/ContactMasking.js"
import { normalise } from "../../src/chat/contact/Normalise.js"
import { LEAK_ATTEMPTS, type LeakAttempt, ORDINARY_TEXTS } from "./ContactCorpus.js"

const SPELLED = new Map(
  [
    ["zero", "صفر"],
    ["one", "واحد واحده"],
    ["two", "اثنين اتنين"],
    ["three", "ثلاثة تلاته"],
    ["four", "أربعة اربعه"],
    ["five", "خمسة خمسه"],
    ["six", "ستة سته"],
    ["seven", "سبعة سبعه"],
    ["eight", "ثمانية تمانية"],
    ["nine", "تسعة تسعه"]
  ].flatMap(([english, arabic], digit) => [english!, ...arabic!.split(" ")].map((word) => [word, String(digit)]))
)

/** What a reader can still make out of a masked text: its normalised form, spelled digits read as digits. */
const readable = (text: string) =>
  normalise(text)
    .text.replace(/\p{L}+/gu, (word) => SPELLED.get(word) ?? SPELLED.get(word.replace(/^و/u, "")) ?? word)
    .replace(/[^\p{L}\p{N}._@-]/gu, "")

const digitsOf = (text: string) => readable(text).replace(/[^0-9]/gu, "")

const now = new Date("2026-01-10T12:00:00Z")

const maskedAttempt = ({ before, text }: LeakAttempt) =>
  before === undefined ? maskContacts(text) : maskContactsAmong(text, before, [])

/** Whether the secret can still be read in what the reader gets. */
const leaks = (attempt: LeakAttempt, shown: string) =>
  /^[0-9]+$/u.test(attempt.secret) ? digitsOf(shown).includes(attempt.secret) : readable(shown).includes(attempt.secret)

describe("the masking corpus", () => {
  it("masks every leak attempt and alters no ordinary text", () => {
    const leaked = LEAK_ATTEMPTS.filter((attempt) => {
      const shown = maskedAttempt(attempt)
      return !shown.masked || leaks(attempt, shown.text)
    })
    const altered = ORDINARY_TEXTS.filter((text) => maskContacts(text).text !== text)
    console.log(
      `masking corpus: ${LEAK_ATTEMPTS.length - leaked.length}/${LEAK_ATTEMPTS.length} leak attempts masked, ` +
        `${altered.length}/${ORDINARY_TEXTS.length} ordinary texts altered`
    )
    expect(LEAK_ATTEMPTS.length).toBeGreaterThanOrEqual(300)
    expect(ORDINARY_TEXTS.length).toBeGreaterThanOrEqual(300)
    expect(leaked.map(({ text }) => [text, maskedAttempt({ text, secret: "" }).text])).toEqual([])
    expect(altered.map((text) => [text, maskContacts(text).text])).toEqual([])
  })

  it("holds what a leak-proof check would need: each secret is readable before masking", () => {
    const unreadable = LEAK_ATTEMPTS.filter(
      (attempt) => !leaks(attempt, [...(attempt.before ?? []), attempt.text].join("\n"))
    )
    expect(unreadable.map(({ text }) => text)).toEqual([])
  })
})

describe("maskContacts", () => {
  it("keeps the text around every detail, line breaks included", () => {
    const text = "مرحبا\nرقمي 0501234567\nوالإيميل a@b.co\nالسعر 3500"
    expect(maskContacts(text)).toEqual({ text: `مرحبا\nرقمي ${MASK}\nوالإيميل ${MASK}\nالسعر 3500`, masked: true })
  })

  it("masks the invisible and combining characters of a detail with it", () => {
    expect(maskContacts("رقمي 0\u03011\u0301 0\u0301501234567\u0301 شكرا").text).toBe(`رقمي ${MASK} شكرا`)
    expect(maskContacts("1\uFE0F\u20E3 0501234567\uFE0F\u20E3!").text).toBe(`1\uFE0F\u20E3 ${MASK}!`)
  })

  it("masks the handle after an app's name, not the name", () => {
    expect(maskContacts("snap: ali_shop").text).toBe(`snap: ${MASK}`)
    expect(maskContacts("سناب ali.shop ولا تنسى").text).toBe(`سناب ${MASK} ولا تنسى`)
  })

  it("masks an 8-digit number in groups only when the text speaks of calling", () => {
    expect(maskContacts("9988 7766").masked).toBe(false)
    expect(maskContacts("اتصل 9988 7766").masked).toBe(true)
    expect(maskContacts("99887766").masked).toBe(true)
  })
})

describe("maskContactsAmong", () => {
  it("masks a number spread over the sender's messages, in each of them", () => {
    expect(maskContactsAmong("4567", ["050 123"], [])).toEqual({ text: MASK, masked: true })
    expect(maskContactsAmong("050 123", [], ["4567"])).toEqual({ text: MASK, masked: true })
    expect(maskContactsAmong("السعر النهائي للجهاز 3500", ["050 123"], ["4567"])).toEqual({
      text: "السعر النهائي للجهاز 3500",
      masked: false
    })
  })
})

describe("neighboursOf", () => {
  const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
  const line = (seq: number, senderId: string, messageText: string, minutes = seq) => ({
    seq,
    senderId,
    messageText,
    createdAt: at(minutes)
  })

  it("takes the sender's messages around one, skipping the other party's", () => {
    const lines = [
      line(1, "s", "050"),
      line(2, "b", "?"),
      line(3, "s", "123"),
      line(4, "b", "ok"),
      line(5, "s", "4567")
    ]
    expect(neighboursOf(lines, 4)).toEqual({ before: ["050", "123"], after: [] })
    expect(neighboursOf(lines, 0)).toEqual({ before: [], after: ["123", "4567"] })
  })

  it("takes only messages sent within the window of minutes", () => {
    const late = SPREAD_MINUTES + 1
    const lines = [line(1, "s", "050 123", 0), line(2, "s", "4567", late)]
    expect(neighboursOf(lines, 1)).toEqual({ before: [], after: [] })
  })

  it("takes at most four messages on each side", () => {
    const lines = ["0", "5", "0", "1", "2", "3"].map((digit, index) => line(index + 1, "s", digit, 0))
    expect(neighboursOf(lines, 5).before).toEqual(["5", "0", "1", "2"])
  })
})

describe("hasContactDetail", () => {
  it("finds a detail in a name or a bio, and none in an ordinary one", () => {
    expect(hasContactDetail("WhatsApp 0501234567")).toBe(true)
    expect(hasContactDetail("متجر علي alishop.sa")).toBe(true)
    expect(hasContactDetail("متجر علي للجوالات")).toBe(false)
    expect(hasContactDetail("Ali Phones, since 2015, 4.9 stars")).toBe(false)
  })
})
