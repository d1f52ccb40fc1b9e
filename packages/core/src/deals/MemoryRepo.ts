import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowWhere, unchanged, updateRow } from "../memory/Rows.js"
import { MemoryStore, UniqueViolation } from "../memory/Store.js"
import { DealRepo } from "./Repo.js"

/** {@link DealRepo} over the {@link MemoryStore}: one deal per request and per offer. */
export const MemoryDealRepo = Layer.effect(
  DealRepo,
  Effect.map(MemoryStore, (store) =>
    DealRepo.of({
      insert: (deal) =>
        store.write((t) => {
          if (Option.isSome(rowWhere(t.deals, (d) => d.requestId === deal.requestId)))
            throw new UniqueViolation({ constraint: "deals_request_id_key" })
          if (Option.isSome(rowWhere(t.deals, (d) => d.offerId === deal.offerId)))
            throw new UniqueViolation({ constraint: "deals_offer_id_key" })
          return [undefined, insertNew(t, "deals", deal.id, deal, "deals_pkey")] as const
        }),
      findById: (id) => store.read((t) => HashMap.get(t.deals, id)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.deals, id), t)),
      update: (deal) =>
        store.write(
          updateRow("deals", deal, ["requestId", "offerId", "buyerId", "sellerId", "conversationId", "createdAt"])
        ),
      hasOpenFor: (userId) =>
        store.read((t) =>
          Option.isSome(
            rowWhere(t.deals, (d) => d.status === "accepted" && (d.buyerId === userId || d.sellerId === userId))
          )
        )
    })
  )
)
