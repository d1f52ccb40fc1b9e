import { describe, expect, it } from "vitest"
import {
  addRating,
  applyForSellerProfile,
  approveSellerProfile,
  DomainEvent,
  rejectSellerProfile,
  SellerProfileExists,
  SellerProfileNotPending,
  type SellerProfileStatus,
  statusOfCode,
  suspendSellerProfile
} from "../src/index.js"
import { at, left, newProfileInput, profileOf, right, SELLER } from "./helpers.js"

describe("applyForSellerProfile", () => {
  it("creates a pending profile with no ratings and raises SellerProfileApplied", () => {
    const input = newProfileInput()
    const { state, events } = right(applyForSellerProfile(input, null, at(1)))
    expect(state).toEqual({
      ...input,
      status: "pending",
      ratingAvg: 0,
      ratingCount: 0,
      createdAt: at(1),
      approvedAt: null
    })
    expect(events).toEqual([DomainEvent.SellerProfileApplied({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["pending", "approved", "rejected", "suspended"])(
    "refuses a user who already has a %s profile with SellerProfileExists (422)",
    (status) => {
      const error = left(applyForSellerProfile(newProfileInput({ id: "profile-2" }), profileOf({ status }), at(1)))
      expect(error).toBeInstanceOf(SellerProfileExists)
      expect(error.code).toBe("SELLER_PROFILE_EXISTS")
      expect(statusOfCode[error.code]).toBe(422)
    }
  )
})

describe("approveSellerProfile", () => {
  it("approves a pending profile, sets approvedAt and raises SellerProfileApproved", () => {
    const { state, events } = right(approveSellerProfile(profileOf(), at(100)))
    expect(state.status).toBe("approved")
    expect(state.approvedAt).toEqual(at(100))
    expect(events).toEqual([DomainEvent.SellerProfileApproved({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["approved", "rejected", "suspended"])(
    "refuses a %s profile with SellerProfileNotPending (422)",
    (status) => {
      const error = left(approveSellerProfile(profileOf({ status }), at(100)))
      expect(error).toBeInstanceOf(SellerProfileNotPending)
      expect(error.code).toBe("SELLER_PROFILE_NOT_PENDING")
      expect(statusOfCode[error.code]).toBe(422)
    }
  )
})

describe("rejectSellerProfile", () => {
  it("rejects a pending profile and raises SellerProfileRejected", () => {
    const { state, events } = right(rejectSellerProfile(profileOf()))
    expect(state.status).toBe("rejected")
    expect(state.approvedAt).toBeNull()
    expect(events).toEqual([DomainEvent.SellerProfileRejected({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["approved", "rejected", "suspended"])(
    "refuses a %s profile with SellerProfileNotPending",
    (status) => {
      expect(left(rejectSellerProfile(profileOf({ status })))).toBeInstanceOf(SellerProfileNotPending)
    }
  )
})

describe("suspendSellerProfile", () => {
  it.each<SellerProfileStatus>(["pending", "approved", "rejected", "suspended"])(
    "suspends a %s profile and raises SellerSuspended",
    (status) => {
      const { state, events } = right(suspendSellerProfile(profileOf({ status, ratingAvg: 4.5, ratingCount: 2 })))
      expect(state.status).toBe("suspended")
      expect(state.ratingAvg).toBe(4.5)
      expect(state.ratingCount).toBe(2)
      expect(events).toEqual([DomainEvent.SellerSuspended({ profileId: "profile-1", userId: SELLER })])
    }
  )

  it("a suspended profile can no longer be approved", () => {
    const suspended = right(suspendSellerProfile(profileOf())).state
    expect(left(approveSellerProfile(suspended, at(1)))).toBeInstanceOf(SellerProfileNotPending)
  })
})

describe("addRating", () => {
  it("the first rating becomes the average", () => {
    expect(addRating({ ratingAvg: 0, ratingCount: 0 }, 4)).toEqual({ ratingAvg: 4, ratingCount: 1 })
  })

  it("averages and rounds to 2 decimals", () => {
    expect(addRating({ ratingAvg: 5, ratingCount: 1 }, 4)).toEqual({ ratingAvg: 4.5, ratingCount: 2 })
    expect(addRating({ ratingAvg: 4.5, ratingCount: 2 }, 4)).toEqual({ ratingAvg: 4.33, ratingCount: 3 })
    expect(addRating({ ratingAvg: 4.5, ratingCount: 2 }, 5)).toEqual({ ratingAvg: 4.67, ratingCount: 3 })
    expect(addRating({ ratingAvg: 3, ratingCount: 2 }, 1)).toEqual({ ratingAvg: 2.33, ratingCount: 3 })
  })

  it("the result always has at most 2 decimals", () => {
    const { ratingAvg } = addRating({ ratingAvg: 4.33, ratingCount: 3 }, 2)
    expect(ratingAvg).toBe(3.75)
    expect(Math.round(ratingAvg * 100) / 100).toBe(ratingAvg)
  })

  it("does not mutate its input", () => {
    const profile = { ratingAvg: 3, ratingCount: 1 }
    addRating(profile, 5)
    expect(profile).toEqual({ ratingAvg: 3, ratingCount: 1 })
  })

  /**
   * KNOWN BUG (documented, expected to fail until fixed): addRating folds the *rounded* stored average back in,
   * so rounding errors accumulate and the average can get stuck. After one 5 and ninety-nine 4s the true mean is
   * 4.01 but addRating reports 4.07 (once (avg - 4) / (n + 1) < 0.005 a further 4 cannot move it at all).
   * decisions.md §3 asks for rating_avg to 2 decimals, i.e. round2(mean of the ratings).
   * `it.fails` passes while the bug is present; remove `.fails` once addRating is fixed.
   */
  it.fails("KNOWN BUG: the folded average equals the rounded true mean (5 then ninety-nine 4s)", () => {
    let profile = { ratingAvg: 0, ratingCount: 0 }
    const ratings = [5, ...Array.from({ length: 99 }, () => 4)]
    for (const r of ratings) profile = addRating(profile, r)
    expect(profile.ratingCount).toBe(100)
    expect(profile.ratingAvg).toBe(4.01)
  })

  it("characterises the drift: 5 then ninety-nine 4s gives 4.07 (true mean 4.01)", () => {
    let profile = { ratingAvg: 0, ratingCount: 0 }
    for (const r of [5, ...Array.from({ length: 99 }, () => 4)]) profile = addRating(profile, r)
    expect(profile).toEqual({ ratingAvg: 4.07, ratingCount: 100 })
  })
})
