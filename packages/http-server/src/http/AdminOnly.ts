import { AdminOnly, type ForbiddenResponse } from "@talab/contract"
import { requireAdmin } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { errorResponse, requestLanguage } from "./Localize.js"
import { signedInCaller } from "./SignedInCaller.js"

/** `/admin/*`: 403 to anyone but an administrator (decisions.md section 11), by the rule the use cases apply too. */
export const AdminOnlyLive = Layer.succeed(
  AdminOnly,
  Effect.flatMap(signedInCaller, (caller) =>
    requireAdmin(caller.user).pipe(
      Effect.catchTag("Forbidden", () =>
        Effect.flatMap(requestLanguage, (language) =>
          Effect.fail(errorResponse("FORBIDDEN", language) as ForbiddenResponse)
        )
      )
    )
  )
)
