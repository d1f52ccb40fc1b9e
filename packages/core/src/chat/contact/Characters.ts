/** What the detectors ask of one character of a normalised text (./Normalise.ts), by its code. */

const LETTER = /^\p{L}$/u
const letters = new Map<number, boolean>()

export const isDigit = (code: number) => code >= 0x30 && code <= 0x39

/** A letter of any script (the normalised text has no upper case). */
export const isLetter = (code: number): boolean => {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a
  if (code >= 0x0621 && code <= 0x064a) return true
  let letter = letters.get(code)
  if (letter === undefined) {
    letter = LETTER.test(String.fromCharCode(code))
    letters.set(code, letter)
  }
  return letter
}
