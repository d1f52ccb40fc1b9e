import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SessionRepo } from "../auth/Repo.js"
import { OtpCode } from "../auth/SignIn.js"
import { DealRepo } from "../deals/Repo.js"
import { Offers } from "../offers/Offers.js"
import { OfferRepo } from "../offers/Repo.js"
import { RequestRepo } from "../requests/Repo.js"
import { Requests } from "../requests/Requests.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { currentDate } from "../shared/Now.js"
import { Transactor } from "../shared/Transactor.js"
import { OpenDealsExist } from "./Errors.js"
import { DeviceTokenRepo, UserRepo } from "./Repo.js"
import type { User } from "./User.js"

/** Deleting one's own account: a code sent by SMS to one's own number within the last 10 minutes. */
export const DeleteAccountInput = Schema.Struct({ otpCode: OtpCode })
export type DeleteAccountInput = typeof DeleteAccountInput.Type

/** What deleting an account did that the embedder finishes outside the transaction. */
export interface DeletedAccount {
  readonly deletedAt: Date
  /** The sessions it ended: their sockets are the embedder's to close. */
  readonly endedSessionIds: ReadonlyArray<string>
  /** The avatar it erased from the row (null for none): the file is the embedder's to remove. */
  readonly avatarUrl: string | null
}

/**
 * Deleting an account: what the user holds alone goes, what other people hold stays whole and names the user by
 * id only.
 */
export class AccountDeletion extends Effect.Service<AccountDeletion>()("@talab/core/AccountDeletion", {
  effect: Effect.gen(function* () {
    const users = yield* UserRepo
    const devices = yield* DeviceTokenRepo
    const sessions = yield* SessionRepo
    const deals = yield* DealRepo
    const requests = yield* RequestRepo
    const offers = yield* OfferRepo
    const profiles = yield* SellerProfileRepo
    const requestFlows = yield* Requests
    const offerFlows = yield* Offers
    const transactor = yield* Transactor

    /**
     * In one transaction, the user's account, with `alsoInside` run in it before the end (what the embedder stores
     * beside the ports, such as alert rules): their active requests closed and pending offers withdrawn (by the
     * same workflows as the owner's, with their events and pushes), every session ended, every push token
     * removed, and the row erased but its id. With a deal still `accepted` on either side: `OpenDealsExist`, and
     * nothing changed.
     *
     * The seller profile is locked first, so no offer of theirs is made or accepted meanwhile; each request is
     * locked as it is closed, so an accept racing on it either made its deal before (then seen below, and the
     * deletion refused) or finds the request closed. The open deals are looked for last, after those locks.
     */
    const deleteAccount = <E = never, R = never>(user: User, alsoInside?: Effect.Effect<void, E, R>) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          yield* profiles.lockByUserId(user.id)
          // A request that lapsed by the clock, or one closed meanwhile, is left to what already ended it; the
          // ids are the user's own, read in this transaction, so no other refusal can come.
          for (const id of yield* requests.activeIdsOfBuyer(user.id)) {
            yield* requestFlows
              .close(user, id)
              .pipe(
                Effect.catchAll((error) =>
                  error._tag === "RequestExpired" || error._tag === "RequestAlreadyClosed"
                    ? Effect.void
                    : Effect.die(error)
                )
              )
          }
          for (const id of yield* offers.pendingIdsOfSeller(user.id)) {
            yield* offerFlows
              .withdraw(user, id)
              .pipe(Effect.catchAll((error) => (error._tag === "OfferNotPending" ? Effect.void : Effect.die(error))))
          }
          if (yield* deals.hasOpenFor(user.id)) return yield* Effect.fail(new OpenDealsExist())
          const endedSessionIds = yield* sessions.revokeAll(user.id, at)
          yield* devices.removeAllOfUser(user.id)
          if (alsoInside !== undefined) yield* alsoInside
          const erased = yield* users.erase(user.id, at)
          return {
            deletedAt: at,
            endedSessionIds,
            avatarUrl: erased._tag === "Some" ? erased.value : null
          } satisfies DeletedAccount
        })
      )

    return { deleteAccount } as const
  })
}) {}
