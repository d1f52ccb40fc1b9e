import { Forbidden, type User } from "@talab/core"
import { Effect } from "effect"

/** `/admin/*` is for administrators only (users who signed in with a number of ADMIN_PHONE_NUMBERS). */
export const requireAdmin = (user: User): Effect.Effect<void, Forbidden> =>
  user.isAdmin ? Effect.void : Effect.fail(new Forbidden())
