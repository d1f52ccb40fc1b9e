import { SqlClient } from "@effect/sql"
import { FileStore, Ids, ImageLimitReached, Images, MAX_UNATTACHED_IMAGES, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import type { ImageRejected } from "./Decode.js"
import { DecodeGate } from "./DecodeGate.js"
import { decodePhoto, screenPhoto } from "./Photo.js"
import { rejectionAsDomainError } from "./Rejections.js"
import { SignedImageUrls } from "./SignedUrls.js"

const asDomainError = (rejected: ImageRejected) => rejectionAsDomainError(rejected, "image", "image")

/*
 * Photo files are named `photo_<uuid>.webp` and `photo_<uuid>_t.webp`: the underscore keeps them out of the
 * avatar route's names, so a photo is only ever served through its signed URL.
 */
const fileKeysOf = (name: string) => ({ fileKey: `photo_${name}.webp`, thumbnailKey: `photo_${name}_t.webp` })

/** Uploading photos: checked, decoded behind the avatars' gate, stored, recorded under the per-user cap. */
export class ImagesService extends Effect.Service<ImagesService>()("Images/Service", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const images = yield* Images
    const files = yield* FileStore
    const ids = yield* Ids
    const gate = yield* DecodeGate
    const urls = yield* SignedImageUrls

    /** A cheap look before any decoding: a user at the cap costs no CPU (the cap is checked again, locked). */
    const refuseAtCap = (owner: User) =>
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM images WHERE owner_id = ${owner.id} AND holder_kind IS NULL`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          (rows[0]?.n ?? 0) >= MAX_UNATTACHED_IMAGES
            ? Effect.fail(new ImageLimitReached({ max: MAX_UNATTACHED_IMAGES }))
            : Effect.void
        )
      )

    /** Files written for an upload the cap then refused go again: nothing of it stays. */
    const removeFiles = (keys: ReadonlyArray<string>) =>
      Effect.forEach(keys, (key) => files.delete(key), { discard: true }).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.logWarning("Images: a refused upload's file was not deleted").pipe(
            Effect.annotateLogs({ defect: String(defect) })
          )
        )
      )

    const upload = (owner: User, bytes: Uint8Array) =>
      Effect.gen(function* () {
        const type = yield* screenPhoto(bytes).pipe(Effect.mapError(asDomainError))
        yield* refuseAtCap(owner)
        const photo = yield* gate.run(decodePhoto(bytes, type).pipe(Effect.mapError(asDomainError)))
        const keys = fileKeysOf(yield* ids.next)
        yield* files.put(keys.fileKey, { bytes: photo.full.bytes, contentType: photo.contentType })
        yield* files.put(keys.thumbnailKey, { bytes: photo.thumbnail.bytes, contentType: photo.contentType })
        const image = yield* images
          .record(owner, {
            ...keys,
            contentType: photo.contentType,
            width: photo.full.width,
            height: photo.full.height
          })
          .pipe(Effect.tapError(() => removeFiles([keys.fileKey, keys.thumbnailKey])))
        const sign = yield* urls.signer
        return { ...sign(image), createdAt: image.createdAt }
      })

    return { upload } as const
  }),
  dependencies: [Images.Default]
}) {}
