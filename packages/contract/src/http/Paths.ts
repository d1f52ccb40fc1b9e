import * as Schema from "effect/Schema"
import { fieldProblem } from "./Problems.js"

/** The problem key of a path id that is not a UUID: the server answers it 404 NOT_FOUND, not 400. */
export const UNKNOWN_ID = "unknown_id"

/**
 * The `{id}` of a path: a UUID, decoded at the edge. An id that is not one names nothing, so it answers
 * 404 NOT_FOUND like an unknown one (after authentication: 401 and 403 still come first), and no handler,
 * query or repository sees it.
 */
export const IdPath = Schema.Struct({
  id: Schema.UUID.annotations({
    ...fieldProblem(UNKNOWN_ID),
    description: "A UUID; any other value answers 404 NOT_FOUND, like an unknown id."
  })
})
