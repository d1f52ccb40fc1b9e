import type { User } from "@talab/core"
import { Context } from "effect"

/** The signed-in caller of a request and the session their token belongs to. */
export class CurrentUser extends Context.Tag("Http/CurrentUser")<
  CurrentUser,
  { readonly user: User; readonly sessionId: string }
>() {}
