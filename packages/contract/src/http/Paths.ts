import { Schema } from "effect"

/**
 * The `{id}` of a path. Any string is accepted: an id that is not a UUID names nothing, so it answers
 * 404 NOT_FOUND like an unknown one (repositories and queries treat it as absent).
 */
export const IdPath = Schema.Struct({ id: Schema.String })
