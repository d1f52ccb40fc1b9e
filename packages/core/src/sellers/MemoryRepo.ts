import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowWhere, unchanged, updateRow } from "../memory/Rows.js"
import { MemoryStore, type Tables } from "../memory/Store.js"
import { SellerProfileRepo } from "./Repo.js"

/** {@link SellerProfileRepo} over the {@link MemoryStore}: one profile per user. */
export const MemorySellerProfileRepo = Layer.effect(
  SellerProfileRepo,
  Effect.map(MemoryStore, (store) => {
    const byUserId = (userId: string) => (t: Tables) => rowWhere(t.sellerProfiles, (p) => p.userId === userId)
    return SellerProfileRepo.of({
      insertIfAbsent: (profile) =>
        store.write((t) =>
          Option.isSome(byUserId(profile.userId)(t))
            ? unchanged(false, t)
            : [true, insertNew(t, "sellerProfiles", profile.id, profile, "seller_profiles_pkey")]
        ),
      findById: (id) => store.read((t) => HashMap.get(t.sellerProfiles, id)),
      findByUserId: (userId) => store.read(byUserId(userId)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.sellerProfiles, id), t)),
      lockByUserId: (userId) => store.write((t) => unchanged(byUserId(userId)(t), t)),
      lockSharedByUserId: (userId) => store.write((t) => unchanged(byUserId(userId)(t), t)),
      update: (profile) => store.write(updateRow("sellerProfiles", profile, ["userId", "createdAt"]))
    })
  })
)
