import { FieldProblemId, fieldRule } from "@talab/core"
import * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import { translate } from "../i18n/messages.js"

/**
 * What a field schema's failure means, as data on the schema: a catalogue key of `i18n/messages.ts` and its
 * parameters, kept under {@link FieldProblemId} on the AST node that fails (the refinement, or the keyword), so
 * validation `details` can be localized without reading any message back.
 */
export interface Problem {
  readonly key: string
  readonly params?: Readonly<Record<string, string | number>>
}

/** A problem found at a path of the decoded input (`[]`: the input itself). */
export interface PathProblem extends Problem {
  readonly path: ReadonlyArray<PropertyKey>
}

export { FieldProblemId }

/** The key of a failure no schema names (a value of the wrong type where no problem is annotated). */
export const INVALID = "invalid"

/** The key of a field that is missing. */
export const REQUIRED = "required"

/** The key of a value that is none of a set of literals; `values` lists them. */
export const ONE_OF = "one_of"

/**
 * The annotations of a schema whose failure is the problem `key` (with `params`): the problem itself, and its
 * English text as the schema's message, for whatever formats the failure without the catalogue (the framework's
 * own decode error, a thrown `ParseError`).
 */
export const fieldProblem = (key: string, params?: Readonly<Record<string, string | number>>) => ({
  ...fieldRule(key, params),
  message: () => translate(key, "en", params)
})

/**
 * What a filter across fields returns to blame one of them (`budget_max` below `budget_min`): a failure at that
 * field, whose problem is the filter's own annotation.
 */
export const failureAt = (field: PropertyKey, input: unknown, filter: AST.Refinement): ParseResult.ParseIssue =>
  new ParseResult.Pointer(field, input, new ParseResult.Type(filter, input))

/** The problem annotated on an AST node, if any. */
export const problemOf = (ast: AST.AST): Problem | undefined => ast.annotations[FieldProblemId] as Problem | undefined

/** The string literals a literal or a union of literals allows, or undefined for any other node. */
const allowedLiterals = (ast: AST.AST): ReadonlyArray<string> | undefined => {
  if (AST.isLiteral(ast)) return typeof ast.literal === "string" ? [ast.literal] : undefined
  if (!AST.isUnion(ast)) return undefined
  const values: Array<string> = []
  for (const member of ast.types) {
    const literals = allowedLiterals(member)
    if (literals === undefined) return undefined
    values.push(...literals)
  }
  return values
}

const oneOf = (values: ReadonlyArray<string>): Problem => ({ key: ONE_OF, params: { values: values.join(", ") } })

/** The problem of a node the input failed to match: its annotation, else the literals it allows, else `invalid`. */
const problemAt = (ast: AST.AST): Problem => {
  const annotated = problemOf(ast)
  if (annotated !== undefined) return annotated
  const literals = allowedLiterals(ast)
  return literals !== undefined ? oneOf(literals) : { key: INVALID }
}

const at = (path: ReadonlyArray<PropertyKey>, problem: Problem): PathProblem =>
  problem.params ? { path, key: problem.key, params: problem.params } : { path, key: problem.key }

const collect = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): ReadonlyArray<PathProblem> => {
  switch (issue._tag) {
    case "Pointer":
      return collect(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Missing":
      return [at(path, { key: REQUIRED })]
    case "Type":
      return [at(path, problemAt(issue.ast))]
    case "Forbidden":
    case "Unexpected":
      return [at(path, { key: INVALID })]
    // The node that failed inside names the problem: a refinement's own predicate fails as a Type issue on it,
    // and a rule across fields as a Pointer to the field it blames.
    case "Refinement":
    case "Transformation":
      return collect(issue.issue, path)
    case "Composite":
      // A union none of whose members matched is one problem when it names one or is a set of literals (`one_of`);
      // otherwise each member's failure counts, as each field of a struct does.
      if (AST.isUnion(issue.ast) && (problemOf(issue.ast) !== undefined || allowedLiterals(issue.ast) !== undefined)) {
        return [at(path, problemAt(issue.ast))]
      }
      return (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).flatMap((inner) => collect(inner, path))
  }
}

/**
 * The problems of a failed decoding, in the order the issue tree lists them (fields in their schema's order):
 * each with the path of the value at fault and the catalogue key read from the schema that failed. A missing
 * field is `required`; a value none of a literal set's members is `one_of` with the allowed `values`; a failure
 * no schema names is `invalid`.
 */
export const problemsOf = (issue: ParseResult.ParseIssue): ReadonlyArray<PathProblem> => collect(issue, [])
