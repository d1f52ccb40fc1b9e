import type { User } from "@talab/core"
import { normalizeMobileNumber } from "../auth/Phone.js"

/**
 * Who is an administrator: a user whose number is in ADMIN_PHONE_NUMBERS (read at start, so removing a number
 * demotes its user at their next request) or whose `users.is_admin` an operator set (a grant that outlives the
 * list). The list is never written into `users.is_admin`.
 */
export const adminPolicy = (adminPhoneNumbers: ReadonlyArray<string>) => {
  // Entries are normalised when the configuration is read; settings made in code may not be.
  const listed = new Set(adminPhoneNumbers.map((entry) => normalizeMobileNumber(entry) ?? entry))
  return {
    /** The user as the API shows and checks them: `isAdmin` is the effective value (what core's `requireAdmin` reads). */
    effective: (user: User): User => (user.isAdmin || !listed.has(user.phoneNumber) ? user : { ...user, isAdmin: true })
  } as const
}
