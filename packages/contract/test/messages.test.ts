import { describe, expect, it } from "vitest"
import { translate } from "../src/index.js"

describe("counted messages", () => {
  it.each([
    [1, "Must be at least 1 character"],
    [2, "Must be at least 2 characters"],
    [100, "Must be at least 100 characters"]
  ])("English says %i character(s) with the right number", (min, text) => {
    expect(translate("too_short", "en", { min })).toBe(text)
  })

  it.each([
    [1, "يجب ألا يقل الطول عن حرف واحد"],
    [2, "يجب ألا يقل الطول عن حرفين"],
    [3, "يجب ألا يقل الطول عن 3 أحرف"],
    [10, "يجب ألا يقل الطول عن 10 أحرف"],
    [11, "يجب ألا يقل الطول عن 11 حرفاً"],
    [99, "يجب ألا يقل الطول عن 99 حرفاً"],
    [100, "يجب ألا يقل الطول عن 100 حرف"],
    [2000, "يجب ألا يزيد الطول عن 2000 حرف"]
  ])("Arabic uses the plural form Intl.PluralRules picks for %i", (count, text) => {
    const key = text.includes("يزيد") ? "too_long" : "too_short"
    expect(translate(key, "ar", { min: count, max: count })).toBe(text)
  })

  it("leaves texts without a count as they are", () => {
    expect(translate("must_be_string", "en")).toBe("Must be a string")
    expect(translate("integer_range", "en", { min: 1, max: 100 })).toBe("Must be an integer from 1 to 100")
  })
})
