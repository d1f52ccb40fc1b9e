import { describe, expect, it } from "vitest"
import { isPhoneLike, MASK, maskContacts } from "../../src/chat/ContactMasking.js"

/** Real-world ways sellers and buyers write contact details, each with what the recipient must see. */
const masked: ReadonlyArray<readonly [string, string]> = [
  // Saudi mobiles, every common spelling
  ["0501234567", MASK],
  ["050 123 4567", MASK],
  ["050-123-4567", MASK],
  ["050.123.4567", MASK],
  ["(050) 123-4567", MASK],
  ["+966501234567", MASK],
  ["+966 50 123 4567", MASK],
  ["+966-50-123-4567", MASK],
  ["00966501234567", MASK],
  ["00 966 50 123 4567", MASK],
  ["966501234567", MASK],
  ["501234567", MASK],
  ["+ 966 50 123 4567", MASK],
  ["05 01 23 45 67", MASK],
  ["0 5 0 1 2 3 4 5 6 7", MASK],
  // Arabic-Indic and Eastern Arabic-Indic digits, alone and mixed
  ["٠٥٠١٢٣٤٥٦٧", MASK],
  ["٠٥٠ ١٢٣ ٤٥٦٧", MASK],
  ["٠٥٠-١٢٣-٤٥٦٧", MASK],
  ["+٩٦٦٥٠١٢٣٤٥٦٧", MASK],
  ["۰۵۰۱۲۳۴۵۶۷", MASK],
  ["۰۵۰ ۱۲۳ ۴۵۶۷", MASK],
  ["050١٢٣٤٥٦٧", MASK],
  // Other Arab countries
  ["01012345678", MASK],
  ["+20 101 234 5678", MASK],
  ["0791234567", MASK],
  ["+962 79 123 4567", MASK],
  ["+971 50 123 4567", MASK],
  ["99887766", MASK],
  ["+965 9988 7766", MASK],
  ["0096599887766", MASK],
  ["33445566", MASK],
  // In a sentence, Arabic and English
  ["كلمني على 0501234567 بعد المغرب", `كلمني على ${MASK} بعد المغرب`],
  ["رقمي٠٥٠١٢٣٤٥٦٧", `رقمي${MASK}`],
  ["واتساب: 050 123 4567", `واتساب: ${MASK}`],
  ["call me at +966 50 123 4567 tonight", `call me at ${MASK} tonight`],
  ["whatsapp 0501234567 or 0559876543", `whatsapp ${MASK} or ${MASK}`],
  // E-mail addresses
  ["ahmed@gmail.com", MASK],
  ["Ahmed.Shop+phones@outlook.sa", MASK],
  ["راسلني على ahmed_99@hotmail.com", `راسلني على ${MASK}`],
  ["ahmed (at) gmail (dot) com", MASK],
  ["ahmed[at]gmail[dot]com", MASK],
  ["sales@mobile-store.com.sa.", `${MASK}.`],
  // Links
  ["https://wa.me/966501234567", MASK],
  ["http://example.com/shop?id=3", MASK],
  ["www.mobile-store.com", MASK],
  ["wa.me/966501234567", MASK],
  ["t.me/ahmed_phones", MASK],
  ["instagram.com/ahmed.phones", MASK],
  ["snapchat.com/add/ahmed", MASK],
  ["bit.ly/3xYzAbC", MASK],
  ["تابعني mobilestore.sa", `تابعني ${MASK}`],
  ["HTTPS://WA.ME/966501234567", MASK]
]

/** What must reach the recipient untouched: prices, model numbers, sizes, dates, ranges, plain words. */
const untouched: ReadonlyArray<string> = [
  "iPhone 15 Pro 256",
  "iPhone 15 Pro Max 256GB",
  "Galaxy S24 Ultra 512 جيجا",
  "SM-S928B",
  "A2848",
  "السعر 3500 ريال",
  "السعر ٣٥٠٠ ريال",
  "price 3,500 SAR",
  "1,250,000",
  "1500.50",
  "4500 - 5000",
  "10000-15000",
  "الميزانية بين 2000 و 3000",
  "2025-01-15",
  "delivery on 15/01/2025",
  "battery 100%",
  "128 / 256 / 512",
  "model 2023, 6.1 inch",
  "Pixel 8 Pro 12GB RAM",
  "Version 17.2.1",
  "AirPods Pro 2",
  "v2.0",
  "Is it still available?",
  "هل الجهاز مستعمل؟",
  "I can pay 1200 today and 800 tomorrow",
  "A1 Mobile",
  "room 12 building 4",
  "e.g. the blue one",
  "iPhone13.Pro",
  "1234567"
]

describe("maskContacts", () => {
  it("has a table of at least 50 spellings to mask", () => {
    expect(masked.length).toBeGreaterThanOrEqual(50)
  })

  it.each(masked)("masks %j", (text, expected) => {
    expect(maskContacts(text)).toEqual({ text: expected, masked: true })
  })

  it.each(untouched)("leaves %j as it is", (text) => {
    expect(maskContacts(text)).toEqual({ text, masked: false })
  })

  it("keeps the text around every detail, line breaks included", () => {
    const text = "مرحبا\nرقمي 0501234567\nوالإيميل a@b.co\nالسعر 3500"
    expect(maskContacts(text)).toEqual({ text: `مرحبا\nرقمي ${MASK}\nوالإيميل ${MASK}\nالسعر 3500`, masked: true })
  })
})

describe("isPhoneLike", () => {
  it("takes 8 digits only written as one number or with an international prefix", () => {
    expect(isPhoneLike("99887766")).toBe(true)
    expect(isPhoneLike("+965 9988 7766")).toBe(true)
    expect(isPhoneLike("9988 7766")).toBe(false)
    expect(isPhoneLike("1234567")).toBe(false)
  })
})
