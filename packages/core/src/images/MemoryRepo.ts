import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import { insertNew, rowsWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore } from "../memory/Store.js"
import { ImageRepo } from "./Repo.js"

/** {@link ImageRepo} over the {@link MemoryStore}; its transactions run one at a time, so an owner needs no lock. */
export const MemoryImageRepo = Layer.effect(
  ImageRepo,
  Effect.map(MemoryStore, (store) =>
    ImageRepo.of({
      lockOwner: () => Effect.void,
      countUnattached: (ownerId) =>
        store.read((t) => rowsWhere(t.images, (i) => i.ownerId === ownerId && i.holderKind === null).length),
      insert: (image) => store.write((t) => [undefined, insertNew(t, "images", image.id, image, "images_pkey")]),
      lockUnattached: (ownerId, ids) =>
        store.write((t) =>
          unchanged(
            rowsWhere(t.images, (i) => ids.includes(i.id) && i.ownerId === ownerId && i.holderKind === null),
            t
          )
        ),
      attach: (ids, holder) =>
        store.write((t) => [
          undefined,
          {
            ...t,
            images: ids.reduce(
              (rows, id, position) =>
                HashMap.modify(rows, id, (image) => ({
                  ...image,
                  holderKind: holder.kind,
                  holderId: holder.id,
                  position
                })),
              t.images
            )
          }
        ])
    })
  )
)
