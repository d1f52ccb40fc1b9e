import * as Layer from "effect/Layer"
import { AttachedImages } from "./Attached.js"
import { DecodeGate } from "./DecodeGate.js"
import { ImageInspector } from "./Inspect.js"
import { ImageQueries } from "./Queries.js"
import { SignedImageUrls } from "./SignedUrls.js"
import { ImageSweep } from "./Sweep.js"

/**
 * What several features share of photos, provided once below all of them: the signer of URLs and the attached
 * images every view shows, the sweep, and the one gate in front of sharp (avatars and photos wait in one queue).
 */
export const ImagesShared = Layer.mergeAll(
  AttachedImages.Default,
  ImageSweep.Default,
  DecodeGate.Default,
  ImageInspector.Default
).pipe(Layer.provideMerge(Layer.mergeAll(SignedImageUrls.Default, ImageQueries.Default)))

/** The photos views show and the signer of their URLs, with the server's keys: for tools that run the read models outside the app. */
export const AttachedImagesLayer = AttachedImages.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(SignedImageUrls.Default, ImageQueries.Default))
)
