import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Image, ImageHolder } from "./Image.js"

/** Port: stores uploaded images and what each is attached to. */
export class ImageRepo extends Context.Tag("@talab/core/ImageRepo")<
  ImageRepo,
  {
    /**
     * Serialises the uploads and attachments of one owner until the transaction ends, so the count of their
     * unattached images cannot be raced past its cap.
     */
    readonly lockOwner: (ownerId: string) => Effect.Effect<void>
    readonly countUnattached: (ownerId: string) => Effect.Effect<number>
    readonly insert: (image: Image) => Effect.Effect<void>
    /** The images among `ids` that belong to `ownerId` and are attached to nothing, locked for update. */
    readonly lockUnattached: (ownerId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Image>>
    /** Attaches `ids` to `holder`, in the order given. */
    readonly attach: (ids: ReadonlyArray<string>, holder: ImageHolder) => Effect.Effect<void>
  }
>() {}
