import * as Either from "effect/Either"
import { normalizeMobileNumber } from "../auth/Phone.js"

const DAY_MS = 24 * 60 * 60 * 1000

/** A number that signs in with a fixed code and gets no SMS, for app-store review (TEST_PHONE_NUMBERS). */
export interface TestPhoneNumber {
  /** In E.164, as sign-in numbers are stored. */
  readonly phoneNumber: string
  /** The six digits it signs in with. */
  readonly code: string
  /** The last day it works, `YYYY-MM-DD` (UTC), as written. */
  readonly lastDay: string
  /** The end of that day in UTC (exclusive): from this instant on it is an ordinary number. */
  readonly endsAt: Date
}

/** Whether a test number still works at `now`. */
export const isTestNumberActive = (entry: TestPhoneNumber, now: Date) => now.getTime() < entry.endsAt.getTime()

const dayStart = (text: string): Date | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined
  const start = new Date(`${text}T00:00:00.000Z`)
  // 2027-02-30 parses as March 2nd: only a date that prints back as written is one.
  return !Number.isNaN(start.getTime()) && start.toISOString().slice(0, 10) === text ? start : undefined
}

/**
 * Reads `+966500000000=123456@2027-06-30,…`: comma-separated `<number>=<6 digits>@<last day, UTC>`. Numbers are
 * read like sign-in numbers (spaces and dashes accepted). The error names the first bad entry and what is wrong.
 */
export const parseTestPhoneNumbers = (text: string): Either.Either<ReadonlyArray<TestPhoneNumber>, string> => {
  const entries: Array<TestPhoneNumber> = []
  for (const raw of text.split(",")) {
    const entry = raw.trim()
    if (entry === "") continue
    const match = /^([^=@]*)=([^=@]*)@([^=@]*)$/.exec(entry)
    if (match === null) return Either.left(`"${entry}" is not <phone>=<6-digit code>@<YYYY-MM-DD>`)
    const [, phone = "", code = "", day = ""] = match
    const phoneNumber = normalizeMobileNumber(phone.trim())
    if (phoneNumber === undefined)
      return Either.left(`"${entry}": "${phone.trim()}" is not a mobile number in E.164 (+ country code)`)
    if (!/^\d{6}$/.test(code.trim())) return Either.left(`"${entry}": the code must be 6 digits`)
    const start = dayStart(day.trim())
    if (start === undefined) return Either.left(`"${entry}": "${day.trim()}" is not a date (YYYY-MM-DD)`)
    if (entries.some((known) => known.phoneNumber === phoneNumber))
      return Either.left(`"${entry}": ${phoneNumber} is listed twice`)
    entries.push({
      phoneNumber,
      code: code.trim(),
      lastDay: day.trim(),
      endsAt: new Date(start.getTime() + DAY_MS)
    })
  }
  return Either.right(entries)
}
