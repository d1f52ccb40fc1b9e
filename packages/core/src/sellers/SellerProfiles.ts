import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { withoutContactDetails } from "../chat/ContactMasking.js"
import { rejectPendingOffers } from "../offers/Offer.js"
import { OfferRepo } from "../offers/Repo.js"
import { Ids } from "../platform/Ids.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { FreeText, Optional, Text } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import { requireAdmin } from "../users/Policy.js"
import { UserRepo } from "../users/Repo.js"
import type { User } from "../users/User.js"
import { SellerProfileExists } from "./Errors.js"
import { publiclyVisible } from "./Policy.js"
import { SellerProfileRepo } from "./Repo.js"
import {
  applyForSellerProfile,
  approveSellerProfile,
  reinstateSellerProfile,
  rejectSellerProfile,
  suspendApprovedSeller
} from "./SellerProfile.js"

/** What a user writes to apply for a seller profile: the business name, where it is, and an optional bio. */
export const SellerApplication = Schema.Struct({
  businessName: withoutContactDetails(Text(2, 120)),
  locationDistrict: Text(1, 100),
  locationCity: Optional(Text(1, 100)),
  bio: Optional(withoutContactDetails(FreeText(0, 2000)))
})
export type SellerApplication = typeof SellerApplication.Type

/** Why an administrator rejects an application: told to the applicant (GET /users/me and a push); optional. */
export const RejectInput = Schema.Struct({ reason: Optional(FreeText(1, 500)) })
export type RejectInput = typeof RejectInput.Type

/** Why an administrator suspends or reinstates a seller: required, kept in the audit trail. */
export const SellerStatusChangeInput = Schema.Struct({ reason: FreeText(1, 500) })
export type SellerStatusChangeInput = typeof SellerStatusChangeInput.Type

const foundProfile = requireFound("seller_profile")

/** The seller-profile workflows: a user applies, an administrator approves or rejects; and the public view. */
export class SellerProfiles extends Effect.Service<SellerProfiles>()("@talab/core/SellerProfiles", {
  effect: Effect.gen(function* () {
    const profiles = yield* SellerProfileRepo
    const users = yield* UserRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids

    /** A user without a profile applies; of two racing applications of one user, one wins. */
    const apply = (user: User, application: SellerApplication) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const existing = Option.getOrNull(yield* profiles.findByUserId(user.id))
          const { state, events } = yield* applyForSellerProfile(
            {
              id: yield* ids.next,
              userId: user.id,
              ...application,
              locationCity: application.locationCity ?? null,
              bio: application.bio ?? null
            },
            existing,
            at
          )
          if (!(yield* profiles.insertIfAbsent(state))) return yield* Effect.fail(new SellerProfileExists())
          yield* outbox.append(events, at)
          return state
        })
      )

    /** An approved profile, for anybody; any other state is not found. */
    const getPublic = (id: string) =>
      Effect.gen(function* () {
        const profile = yield* publiclyVisible(yield* foundProfile(yield* profiles.findById(id)))
        // A deleted account's profile left the public view with it.
        if (Option.isNone(yield* users.findById(profile.userId))) return yield* foundProfile(Option.none())
        return profile
      })

    /** An administrator approves a pending application. */
    const approve = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const profile = yield* foundProfile(yield* profiles.lock(id))
          yield* requireAdmin(caller)
          const { state, events } = yield* approveSellerProfile(profile, at)
          yield* profiles.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, approvedAt: at }
        })
      )

    /** An administrator rejects a pending application, telling the applicant why or not. */
    const reject = (caller: User, id: string, input: RejectInput = {}) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const profile = yield* foundProfile(yield* profiles.lock(id))
          yield* requireAdmin(caller)
          const { state, events } = yield* rejectSellerProfile(profile, input.reason ?? null)
          yield* profiles.update(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    /**
     * An administrator suspends an approved seller: as a report resolved with `suspend_seller` does, the seller's
     * pending offers are rejected in the same transaction (profile locked before the offers, the lock order).
     * Answers the profile and the offers it rejected.
     */
    const suspend = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const profile = yield* foundProfile(yield* profiles.lock(id))
          yield* requireAdmin(caller)
          const suspended = yield* suspendApprovedSeller(profile)
          yield* profiles.update(suspended.state)
          const dropped = rejectPendingOffers(yield* offers.lockPendingBySeller(profile.userId))
          yield* offers.updateStatus(dropped.rejected, at)
          yield* outbox.append([...suspended.events, ...dropped.events], at)
          return { profile: suspended.state, rejectedOfferIds: dropped.rejected.map((offer) => offer.id) }
        })
      )

    /** An administrator reinstates a suspended seller; offers rejected by the suspension stay rejected. */
    const reinstate = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const profile = yield* foundProfile(yield* profiles.lock(id))
          yield* requireAdmin(caller)
          const { state, events } = yield* reinstateSellerProfile(profile)
          yield* profiles.update(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    return { apply, getPublic, approve, reject, suspend, reinstate } as const
  })
}) {}
