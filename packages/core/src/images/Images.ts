import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Ids } from "../platform/Ids.js"
import { ValidationFailed } from "../shared/Errors.js"
import { fieldRule } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { ImageLimitReached } from "./Errors.js"
import type { Image, ImageHolder } from "./Image.js"
import { ImageRepo } from "./Repo.js"

/** Most images a user may hold attached to nothing; the next upload is refused with {@link ImageLimitReached}. */
export const MAX_UNATTACHED_IMAGES = 50
/** Hours an image may stay attached to nothing before it is deleted, files included. */
export const UNATTACHED_IMAGE_HOURS = 24
/** Most photos of one buy request. */
export const MAX_REQUEST_PHOTOS = 6
/** Most photos of one offer. */
export const MAX_OFFER_PHOTOS = 8
/** Most attachments of one chat message. */
export const MAX_MESSAGE_ATTACHMENTS = 4

const ImageId = Schema.UUID.annotations(fieldRule("image_id"))

/**
 * Ids of the caller's own unattached images, at most `max`, in the order they are shown. Whether each is the
 * caller's and unattached is checked where they are attached ({@link attachImages}).
 */
export const ImageIds = (max: number) =>
  Schema.Array(ImageId).pipe(
    Schema.filter((ids) => ids.length <= max, fieldRule("too_many_images", { max })),
    Schema.filter((ids) => new Set(ids).size === ids.length, fieldRule("image_repeated"))
  )

/** The new image a server stored the files of, before it is recorded. */
export interface StoredImageFiles {
  readonly fileKey: string
  readonly thumbnailKey: string
  readonly contentType: string
  readonly width: number
  readonly height: number
}

/**
 * Attaches the caller's images `ids` to `holder` inside the caller's transaction (images are locked last, after
 * every other aggregate): each must be the owner's and attached to nothing, else `ValidationFailed` on `field`
 * and the transaction (what it was creating) rolls back.
 */
export const attachImages = (
  images: ImageRepo["Type"],
  owner: Pick<User, "id">,
  ids: ReadonlyArray<string> | undefined,
  holder: ImageHolder,
  field: string
) =>
  Effect.gen(function* () {
    if (ids === undefined || ids.length === 0) return
    if (new Set(ids).size !== ids.length) return yield* ValidationFailed.field(field, "image_repeated")
    const found = yield* images.lockUnattached(owner.id, ids)
    if (found.length !== ids.length) return yield* ValidationFailed.field(field, "image_not_available")
    yield* images.attach(ids, holder)
  })

/** The images workflows: recording an upload under the per-user cap. */
export class Images extends Effect.Service<Images>()("@talab/core/Images", {
  effect: Effect.gen(function* () {
    const images = yield* ImageRepo
    const transactor = yield* Transactor
    const ids = yield* Ids

    /** Records the owner's new image, attached to nothing; past {@link MAX_UNATTACHED_IMAGES} refused. */
    const record = (owner: User, files: StoredImageFiles) =>
      transactor.transaction(
        Effect.gen(function* () {
          yield* images.lockOwner(owner.id)
          if ((yield* images.countUnattached(owner.id)) >= MAX_UNATTACHED_IMAGES) {
            return yield* new ImageLimitReached({ max: MAX_UNATTACHED_IMAGES })
          }
          const image: Image = {
            id: yield* ids.next,
            ownerId: owner.id,
            ...files,
            holderKind: null,
            holderId: null,
            position: null,
            createdAt: yield* currentDate
          }
          yield* images.insert(image)
          return image
        })
      )

    return { record } as const
  })
}) {}
