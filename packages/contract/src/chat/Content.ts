import type * as Schema from "effect/Schema"
import * as S from "effect/Schema"
import { failureAt, fieldProblem } from "../http/Problems.js"

/**
 * A message says something: text, or at least one attachment. Neither fails on `message_text` as an empty text
 * always did, before anything is looked up (a frame's conversation included); core's `requireContent` holds the
 * same rule for other embedders.
 */
export const withContent = <
  A extends { readonly messageText?: string | undefined; readonly attachmentIds?: ReadonlyArray<string> | undefined },
  I,
  R
>(
  schema: Schema.Schema<A, I, R>
) =>
  schema.pipe(
    S.filter(
      (body, _, self) =>
        (body.messageText ?? "") !== "" ||
        (body.attachmentIds?.length ?? 0) > 0 ||
        failureAt("message_text", body, self),
      fieldProblem("too_short", { min: 1 })
    )
  )
