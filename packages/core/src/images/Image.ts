import * as Schema from "effect/Schema"

/** What holds an attached image: a buy request, an offer or a chat message. */
export const ImageHolderKind = Schema.Literal("request", "offer", "message")
export type ImageHolderKind = typeof ImageHolderKind.Type

/** The thing an image is attached to, and its place among that thing's images (0 first). */
export interface ImageHolder {
  readonly kind: ImageHolderKind
  readonly id: string
}

/**
 * An uploaded photo: re-encoded without metadata and stored twice under server-made file keys (the image and
 * its thumbnail). Unattached (`holderKind` null) until a request, an offer or a message names it; attached once.
 */
export const Image = Schema.Struct({
  id: Schema.UUID,
  ownerId: Schema.UUID,
  fileKey: Schema.String,
  thumbnailKey: Schema.String,
  contentType: Schema.String,
  width: Schema.Int,
  height: Schema.Int,
  holderKind: Schema.NullOr(ImageHolderKind),
  holderId: Schema.NullOr(Schema.UUID),
  position: Schema.NullOr(Schema.Int),
  createdAt: Schema.DateFromSelf
})
export interface Image extends Schema.Schema.Type<typeof Image> {}
