import { Layer } from "effect"
import { ServerKeys } from "../../src/auth/Secrets.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { AttachedImages } from "../../src/images/Attached.js"
import { ImageQueries } from "../../src/images/Queries.js"
import { SignedImageUrls } from "../../src/images/SignedUrls.js"

/** The photos the read models show, and the signer of their URLs, under a key of the tests' own; needs a SqlClient. */
export const AttachedImagesForTests = AttachedImages.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(SignedImageUrls.Default, ImageQueries.Default)),
  Layer.provide(Layer.succeed(ServerKeys, { jwt: new Uint8Array(32), otp: new Uint8Array(32) })),
  Layer.provide(AppConfig.layer())
)
