import type { ImageView } from "@talab/contract"
import type { ImageHolderKind } from "@talab/core"
import * as Effect from "effect/Effect"
import { ImageQueries } from "./Queries.js"
import { SignedImageUrls } from "./SignedUrls.js"

const none: ReadonlyArray<typeof ImageView.Type> = []

/**
 * The photos views show, with URLs signed for the current hour. Only the views of who may see a thing ask for its
 * photos, so a URL is never handed to anyone else (docs/DECISIONS.md, "Photos").
 */
export class AttachedImages extends Effect.Service<AttachedImages>()("Images/Attached", {
  effect: Effect.gen(function* () {
    const queries = yield* ImageQueries
    const urls = yield* SignedImageUrls

    /** The images of each holder (of one kind), in order: an empty list for a holder with none. */
    const of = (kind: ImageHolderKind, holderIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const byHolder = yield* queries.photosOf(kind, holderIds)
        const sign = yield* urls.signer
        const signed = new Map([...byHolder].map(([holderId, images]) => [holderId, images.map(sign)]))
        return (holderId: string) => signed.get(holderId) ?? none
      })

    /** `items`, each with its `photos`. */
    const withPhotos = <A extends { readonly id: string }>(kind: ImageHolderKind, items: ReadonlyArray<A>) =>
      Effect.map(
        of(
          kind,
          items.map((item) => item.id)
        ),
        (photosOf) => items.map((item) => ({ ...item, photos: photosOf(item.id) }))
      )

    /**
     * A holder just created, with its `photos`: those `photoIds` named, attached in its own transaction. With
     * none named it has none, and nothing is read.
     */
    const withNewPhotos = <A extends { readonly id: string }>(
      kind: ImageHolderKind,
      item: A,
      photoIds: ReadonlyArray<string> | undefined
    ) =>
      photoIds === undefined || photoIds.length === 0
        ? Effect.succeed({ ...item, photos: none })
        : Effect.map(withPhotos(kind, [item]), ([shown]) => shown!)

    return { of, withPhotos, withNewPhotos } as const
  })
}) {}
