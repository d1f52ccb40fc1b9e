import { ValidationFailed } from "@talab/core"
import * as Effect from "effect/Effect"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"

/**
 * A phone number in E.164, when it is a valid mobile number by libphonenumber's full metadata.
 * Spaces and dashes are accepted on input; the leading + is required.
 */
export const normalizeMobileNumber = (input: string): string | undefined => {
  const cleaned = input.replace(/[\s\-().]/g, "")
  if (!/^\+\d{6,16}$/.test(cleaned)) return undefined
  const parsed = parsePhoneNumberFromString(cleaned)
  if (!parsed?.isValid()) return undefined
  const type = parsed.getType()
  return type === "MOBILE" || type === "FIXED_LINE_OR_MOBILE" ? parsed.number : undefined
}

/** Digits only, as dialled at home (`0501234567`) or after an international prefix: the `+country` part is missing. */
const lacksCountryCode = (input: string) => /^\d{6,16}$/.test(input.replace(/[\s\-().]/g, ""))

/** The number in E.164, or a validation failure that says what is wrong with it. */
export const parseMobileNumber = (input: string) => {
  const number = normalizeMobileNumber(input)
  if (number !== undefined) return Effect.succeed(number)
  const problem = lacksCountryCode(input) ? "phone_country_code_missing" : "invalid_phone"
  return Effect.fail(ValidationFailed.field("phone_number", problem))
}
