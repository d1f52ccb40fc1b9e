import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition } from "../shared/Transition.js"
import {
  SellerProfileExists,
  SellerProfileNotApproved,
  SellerProfileNotPending,
  SellerProfileNotSuspended
} from "./Errors.js"

/**
 * Where a seller profile stands: `pending` after applying, then `approved` or `rejected` by an administrator;
 * `suspended` after a report resolved with `suspend_seller`. Only `approved` sellers may make offers.
 */
export const SellerProfileStatus = Schema.Literal("pending", "approved", "rejected", "suspended")
export type SellerProfileStatus = typeof SellerProfileStatus.Type

/** A user's application to sell, and once approved their public seller identity. */
export const SellerProfile = Schema.Struct({
  id: Schema.UUID,
  userId: Schema.UUID,
  status: SellerProfileStatus,
  businessName: Schema.String,
  locationDistrict: Schema.String,
  locationCity: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  ratingAvg: Schema.Number,
  ratingCount: Schema.Int,
  createdAt: Schema.DateFromSelf,
  approvedAt: Schema.NullOr(Schema.DateFromSelf),
  rejectionReason: Schema.NullOr(Schema.String).annotations({
    description: "What the admin told the applicant when rejecting the application (null otherwise)."
  })
})
export interface SellerProfile extends Schema.Schema.Type<typeof SellerProfile> {}

/** What a user gives to apply as a seller: business name, location and bio. */
export type NewSellerProfile = Pick<
  SellerProfile,
  "id" | "userId" | "businessName" | "locationDistrict" | "locationCity" | "bio"
>

/** A user with no profile applies; the application is pending. */
export const applyForSellerProfile = (
  input: NewSellerProfile,
  existing: SellerProfile | null,
  now: Date
): Transition<SellerProfile, SellerProfileExists> =>
  existing !== null
    ? Either.left(new SellerProfileExists())
    : moved(
        {
          ...input,
          status: "pending",
          ratingAvg: 0,
          ratingCount: 0,
          createdAt: now,
          approvedAt: null,
          rejectionReason: null
        },
        [DomainEvent.SellerProfileApplied({ profileId: input.id, userId: input.userId })]
      )

/** An admin approves a pending application. */
export const approveSellerProfile = (
  profile: SellerProfile,
  now: Date
): Transition<SellerProfile, SellerProfileNotPending> =>
  profile.status !== "pending"
    ? Either.left(new SellerProfileNotPending())
    : moved({ ...profile, status: "approved", approvedAt: now }, [
        DomainEvent.SellerProfileApproved({ profileId: profile.id, userId: profile.userId })
      ])

/** An admin rejects a pending application, with a reason for the applicant or without one. */
export const rejectSellerProfile = (
  profile: SellerProfile,
  reason: string | null = null
): Transition<SellerProfile, SellerProfileNotPending> =>
  profile.status !== "pending"
    ? Either.left(new SellerProfileNotPending())
    : moved({ ...profile, status: "rejected", rejectionReason: reason }, [
        DomainEvent.SellerProfileRejected({ profileId: profile.id, userId: profile.userId })
      ])

/** A report resolved with `suspend_seller` suspends the profile, whatever state it was in. */
export const suspendSellerProfile = (profile: SellerProfile): Transition<SellerProfile, never> =>
  moved({ ...profile, status: "suspended" }, [
    DomainEvent.SellerSuspended({ profileId: profile.id, userId: profile.userId })
  ])

/** An admin suspends an approved seller directly (not through a report). */
export const suspendApprovedSeller = (profile: SellerProfile): Transition<SellerProfile, SellerProfileNotApproved> =>
  profile.status !== "approved" ? Either.left(new SellerProfileNotApproved()) : suspendSellerProfile(profile)

/** An admin reinstates a suspended seller: approved again, since when it was first approved. */
export const reinstateSellerProfile = (profile: SellerProfile): Transition<SellerProfile, SellerProfileNotSuspended> =>
  profile.status !== "suspended"
    ? Either.left(new SellerProfileNotSuspended())
    : moved({ ...profile, status: "approved" }, [
        DomainEvent.SellerReinstated({ profileId: profile.id, userId: profile.userId })
      ])

/** The exact totals of a seller's ratings: their sum and how many there are. */
export interface RatingTotals {
  readonly sum: number
  readonly count: number
}

/**
 * The average of rating totals to 2 decimals, halves rounded away from zero (as exact decimal arithmetic rounds), or 0
 * without ratings. It scales the integer sum before dividing, so x.xx5 is not lost to binary fractions.
 */
export const averageOf = (totals: RatingTotals): number =>
  totals.count === 0 ? 0 : Math.round((totals.sum * 100) / totals.count) / 100

/**
 * The seller's rating figures after one more rating, computed from the exact totals of the ratings
 * before it (never from the rounded stored average, which would drift as ratings accumulate).
 */
export const addRating = (totals: RatingTotals, rating: number) => {
  const sum = totals.sum + rating
  const count = totals.count + 1
  return { ratingSum: sum, ratingCount: count, ratingAvg: averageOf({ sum, count }) }
}
