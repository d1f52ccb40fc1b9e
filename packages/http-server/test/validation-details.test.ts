import { describe, expect, it } from "vitest"
import { validationDetails } from "../src/http/ValidationDetails.js"

describe("validationDetails", () => {
  it("lists each field's named problems in the language, `invalid` only where nothing more precise was found", () => {
    expect(
      validationDetails(
        [
          { path: ["role"], key: "one_of", params: { values: "buyer, seller" } },
          { path: ["role"], key: "invalid" },
          { path: ["name"], key: "invalid" },
          { path: ["name"], key: "invalid" },
          { path: ["budget_min"], key: "required" }
        ],
        "en"
      )
    ).toEqual({
      role: ["Must be one of: buyer, seller"],
      name: ["The value is not valid"],
      budget_min: ["This field is required"]
    })
  })

  it("names nested fields by their dotted path and drops the noise of their optional parent and of the body", () => {
    expect(
      validationDetails(
        [
          { path: [], key: "invalid" },
          { path: ["device", "name"], key: "too_short", params: { min: 1 } },
          { path: ["device"], key: "invalid" }
        ],
        "ar"
      )
    ).toEqual({ "device.name": ["يجب ألا يقل الطول عن حرف واحد"] })
    expect(validationDetails([{ path: [], key: "must_be_object" }], "en")).toEqual({
      body: ["The request body must be a JSON object"]
    })
  })
})
