import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import { insertNew, rowsWhere, unchanged, updateRow } from "../memory/Rows.js"
import { MemoryStore } from "../memory/Store.js"
import type { BuyRequest } from "./BuyRequest.js"
import { RequestRepo } from "./Repo.js"

/** {@link RequestRepo} over the {@link MemoryStore}. */
export const MemoryRequestRepo = Layer.effect(
  RequestRepo,
  Effect.map(MemoryStore, (store) => {
    const insertAll = (requests: ReadonlyArray<BuyRequest>) =>
      store.write(
        (t) =>
          [
            undefined,
            requests.reduce(
              (tables, request) => insertNew(tables, "requests", request.id, request, "buy_requests_pkey"),
              t
            )
          ] as const
      )
    return RequestRepo.of({
      insert: (request) => insertAll([request]),
      insertAll,
      findById: (id) => store.read((t) => HashMap.get(t.requests, id)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.requests, id), t)),
      update: (request) => store.write(updateRow("requests", request, ["buyerId", "createdAt"])),
      activeIdsOfBuyer: (buyerId) =>
        store.read((t) => rowsWhere(t.requests, (r) => r.buyerId === buyerId && r.status === "active").map((r) => r.id))
    })
  })
)
