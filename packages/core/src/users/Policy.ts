import type * as Effect from "effect/Effect"
import type { Forbidden } from "../shared/Errors.js"
import { allowIf } from "../shared/Policy.js"
import type { User } from "./User.js"

/**
 * Reviewing seller profiles, resolving reports and every `/admin` route are for administrators only; who counts
 * as one (`isAdmin`) is the embedder's to resolve before it asks.
 */
export const requireAdmin = (user: Pick<User, "isAdmin">): Effect.Effect<void, Forbidden> => allowIf(user.isAdmin)

/** An administrator's account is deleted by an operator (`talab users delete`), never through the API. */
export const requireNotAdmin = (user: Pick<User, "isAdmin">): Effect.Effect<void, Forbidden> => allowIf(!user.isAdmin)
