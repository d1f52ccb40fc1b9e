import { describe, expect, it } from "vitest"
import {
  addRating,
  applyForSellerProfile,
  approveSellerProfile,
  averageOf,
  DomainEvent,
  reinstateSellerProfile,
  rejectSellerProfile,
  SellerProfileExists,
  SellerProfileNotApproved,
  SellerProfileNotPending,
  SellerProfileNotSuspended,
  type SellerProfileStatus,
  suspendApprovedSeller,
  suspendSellerProfile
} from "../../src/index.js"
import { at, left, newProfileInput, profileOf, right, SELLER } from "../support/helpers.js"

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
      approvedAt: null,
      rejectionReason: null
    })
    expect(events).toEqual([DomainEvent.SellerProfileApplied({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["pending", "approved", "rejected", "suspended"])(
    "refuses a user who already has a %s profile with SellerProfileExists (422)",
    (status) => {
      const error = left(applyForSellerProfile(newProfileInput({ id: "profile-2" }), profileOf({ status }), at(1)))
      expect(error).toBeInstanceOf(SellerProfileExists)
      expect(error.code).toBe("SELLER_PROFILE_EXISTS")
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

describe("rejectSellerProfile with a reason", () => {
  it("keeps the reason for the applicant; without one there is none", () => {
    expect(right(rejectSellerProfile(profileOf(), "Wrong registration")).state.rejectionReason).toBe(
      "Wrong registration"
    )
    expect(right(rejectSellerProfile(profileOf())).state.rejectionReason).toBeNull()
  })
})

describe("suspendApprovedSeller", () => {
  it("suspends an approved profile and raises SellerSuspended", () => {
    const { state, events } = right(suspendApprovedSeller(profileOf({ status: "approved", approvedAt: at(1) })))
    expect(state).toMatchObject({ status: "suspended", approvedAt: at(1) })
    expect(events).toEqual([DomainEvent.SellerSuspended({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["pending", "rejected", "suspended"])(
    "refuses a %s profile with SellerProfileNotApproved",
    (status) => {
      expect(left(suspendApprovedSeller(profileOf({ status })))).toBeInstanceOf(SellerProfileNotApproved)
    }
  )
})

describe("reinstateSellerProfile", () => {
  it("approves a suspended profile again, keeping when it was first approved, and raises SellerReinstated", () => {
    const { state, events } = right(reinstateSellerProfile(profileOf({ status: "suspended", approvedAt: at(1) })))
    expect(state).toMatchObject({ status: "approved", approvedAt: at(1) })
    expect(events).toEqual([DomainEvent.SellerReinstated({ profileId: "profile-1", userId: SELLER })])
  })

  it.each<SellerProfileStatus>(["pending", "approved", "rejected"])(
    "refuses a %s profile with SellerProfileNotSuspended",
    (status) => {
      expect(left(reinstateSellerProfile(profileOf({ status })))).toBeInstanceOf(SellerProfileNotSuspended)
    }
  )
})

describe("addRating", () => {
  it("the first rating becomes the average", () => {
    expect(addRating({ sum: 0, count: 0 }, 4)).toEqual({ ratingSum: 4, ratingCount: 1, ratingAvg: 4 })
  })

  it("averages the exact sum and rounds to 2 decimals", () => {
    expect(addRating({ sum: 5, count: 1 }, 4)).toEqual({ ratingSum: 9, ratingCount: 2, ratingAvg: 4.5 })
    expect(addRating({ sum: 9, count: 2 }, 4)).toEqual({ ratingSum: 13, ratingCount: 3, ratingAvg: 4.33 })
    expect(addRating({ sum: 9, count: 2 }, 5)).toEqual({ ratingSum: 14, ratingCount: 3, ratingAvg: 4.67 })
    expect(addRating({ sum: 6, count: 2 }, 1)).toEqual({ ratingSum: 7, ratingCount: 3, ratingAvg: 2.33 })
  })

  it("rounds a half up, like PostgreSQL's NUMERIC (467/200 = 2.335 gives 2.34, not 2.33)", () => {
    // 2.335 * 100 is 233.49999999999997 in binary floating point; scaling the integer sum first avoids that.
    expect(averageOf({ sum: 467, count: 200 })).toBe(2.34)
    expect(addRating({ sum: 466, count: 199 }, 1).ratingAvg).toBe(2.34)
    expect(averageOf({ sum: 33, count: 8 })).toBe(4.13)
  })

  it("has no ratings: the average is 0", () => {
    expect(averageOf({ sum: 0, count: 0 })).toBe(0)
  })

  it("does not mutate its input", () => {
    const totals = { sum: 3, count: 1 }
    addRating(totals, 5)
    expect(totals).toEqual({ sum: 3, count: 1 })
  })

  /**
   * Regression: addRating used to fold the *rounded* stored average back in, so rounding errors accumulated and
   * the average could get stuck (one 5 then ninety-nine 4s gave 4.07). decisions.md §3 asks for rating_avg to
   * 2 decimals, i.e. round2(mean of the ratings); it now works from the exact sum.
   */
  it("the folded average equals the rounded true mean (5 then ninety-nine 4s gives 4.01)", () => {
    let totals = { sum: 0, count: 0 }
    let last = addRating(totals, 0)
    for (const r of [5, ...Array.from({ length: 99 }, () => 4)]) {
      last = addRating(totals, r)
      totals = { sum: last.ratingSum, count: last.ratingCount }
    }
    expect(last).toEqual({ ratingSum: 401, ratingCount: 100, ratingAvg: 4.01 })
  })
})
