import { INVALID, type PathProblem, type Problem, translate } from "@talab/contract"
import type { Language } from "@talab/core"

/**
 * The `details` of a 400 for the problems of a failed decoding, in a language: each field (its dotted path,
 * `device.name`; the input itself is `body`) with its messages. A field's named problems are what it shows;
 * `invalid` only when nothing more precise was found there.
 */
export const validationDetails = (
  problems: ReadonlyArray<PathProblem>,
  language: Language
): Record<string, Array<string>> => {
  const byField = new Map<string, Array<Problem>>()
  for (const { path, ...problem } of problems) {
    const field = path.length > 0 ? path.map(String).join(".") : "body"
    byField.set(field, [...(byField.get(field) ?? []), problem])
  }
  // A payload that may be absent is a union with null; its "not null" problem is noise when fields failed.
  if (byField.size > 1) byField.delete("body")
  // So is an optional object's (`device`) when fields inside it failed (`device.name`).
  const fields = [...byField.keys()]
  for (const field of fields) if (fields.some((other) => other.startsWith(`${field}.`))) byField.delete(field)
  const details: Record<string, Array<string>> = {}
  for (const [field, fieldProblems] of byField) {
    const named = fieldProblems.filter((problem) => problem.key !== INVALID)
    const shown = named.length > 0 ? named : [{ key: INVALID }]
    details[field] = [...new Set(shown.map((problem) => translate(problem.key, language, problem.params)))]
  }
  return details
}
