import type * as Schema from "effect/Schema"
import * as S from "effect/Schema"
import { failureAt, fieldProblem } from "../http/Problems.js"

/**
 * A message says something: text, or at least one attachment. Neither fails on `message_text` as an empty text
 * always did, before anything is looked up; the socket's gateway and core's `requireContent` hold the same rule.
 */
export const withContent = <
  A extends { readonly messageText?: string | undefined; readonly attachmentIds?: ReadonlyArray<string> | undefined },
  I,
  R
>(
  schema: Schema.Schema<A, I, R>
) =>
  schema.pipe(
    // Left out: `required`, as before attachments existed; given but empty: `too_short`.
    S.filter(
      (body, _, self) =>
        body.messageText !== undefined ||
        (body.attachmentIds?.length ?? 0) > 0 ||
        failureAt("message_text", body, self),
      fieldProblem("required")
    ),
    S.filter(
      (body, _, self) =>
        (body.messageText ?? "") !== "" ||
        (body.attachmentIds?.length ?? 0) > 0 ||
        failureAt("message_text", body, self),
      fieldProblem("too_short", { min: 1 })
    )
  )
