import type { TestServer } from "@talab/testkit"
import type { Client, SignedIn } from "./harness.js"
import { expectStatus, Marketplace, type Seller } from "./marketplace-fixtures.js"

/** A buyer, an approved seller, and the conversation of the seller's offer on the buyer's request. */
export interface ChatScene {
  readonly buyer: SignedIn
  readonly seller: Seller
  readonly offer: any
  readonly conversationId: string
}

/** The conversation of an offer, found through the party's own list. */
export const conversationOfOffer = async (api: Client, party: SignedIn, offerId: string): Promise<string> => {
  const list = expectStatus(
    await api.get("/conversations/my?per_page=50", { token: party.token }),
    200,
    "GET /conversations/my"
  )
  const found = list.data.conversations.find((c: any) => c.offer_id === offerId)
  if (!found) throw new Error(`no conversation for offer ${offerId}: ${JSON.stringify(list.data)}`)
  return found.id
}

/** Makes the buyer and the seller (unless given) and opens their conversation through POST /offers. */
export const chatScene = async (
  m: Marketplace,
  parties: { readonly buyer?: SignedIn; readonly seller?: Seller } = {}
): Promise<ChatScene> => {
  const buyer = parties.buyer ?? (await m.buyer("Buyer"))
  const seller = parties.seller ?? (await m.approvedSeller("Seller"))
  const { offer } = await m.pendingOffer(buyer, seller)
  return { buyer, seller, offer, conversationId: await conversationOfOffer(m.api, buyer, offer.id) }
}

/** Sends a message over REST and answers the stored message. */
export const postMessage = async (api: Client, sender: SignedIn, conversationId: string, text: string) =>
  expectStatus(
    await api.post(`/conversations/${conversationId}/messages`, { token: sender.token, body: { message_text: text } }),
    201,
    "POST /conversations/{id}/messages"
  ).data

export const marketplaceOf = (server: TestServer, api: Client, adminPhone: string) =>
  new Marketplace(server, api, adminPhone)
