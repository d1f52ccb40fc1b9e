import { Effect, Exit, Option } from "effect"
import { describe, expect, it } from "vitest"
import { type LockedConversation, requireMayWrite, SellerNotApproved } from "../../src/index.js"

const BUYER = "buyer"
const SELLER = "seller"

const conversation = (offerStatus: LockedConversation["offerStatus"]): LockedConversation => ({
  id: "conversation",
  offerId: "offer",
  buyerId: BUYER,
  sellerId: SELLER,
  createdAt: new Date(0),
  lastMessageAt: null,
  offerStatus
})

const mayWrite = (
  offerStatus: LockedConversation["offerStatus"],
  senderId: string,
  status: "pending" | "approved" | "rejected" | "suspended" | undefined
) => {
  const exit = Effect.runSyncExit(
    requireMayWrite(conversation(offerStatus), senderId, status === undefined ? Option.none() : Option.some({ status }))
  )
  if (Exit.isSuccess(exit)) return true
  expect(exit).toEqual(Exit.fail(new SellerNotApproved()))
  return false
}

describe("requireMayWrite", () => {
  it("refuses a suspended, rejected or profile-less seller where the offer is not accepted", () => {
    for (const offerStatus of ["pending", "rejected", "withdrawn", "expired"] as const) {
      for (const status of ["suspended", "rejected", "pending", undefined] as const) {
        expect(mayWrite(offerStatus, SELLER, status), `${offerStatus} ${status}`).toBe(false)
      }
      expect(mayWrite(offerStatus, SELLER, "approved")).toBe(true)
    }
  })

  it("keeps the conversation of an accepted offer open to the seller, whatever their profile", () => {
    for (const status of ["suspended", "rejected", "approved", undefined] as const) {
      expect(mayWrite("accepted", SELLER, status)).toBe(true)
    }
  })

  it("never refuses the buyer", () => {
    expect(mayWrite("pending", BUYER, "suspended")).toBe(true)
    expect(mayWrite("rejected", BUYER, undefined)).toBe(true)
  })
})
