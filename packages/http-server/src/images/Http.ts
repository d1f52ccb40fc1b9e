import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"
import { ImagesService } from "./Service.js"
import { uploadedFile } from "./Upload.js"

const ImagesHttp = HttpApiBuilder.group(Api, "images", (handlers) =>
  Effect.gen(function* () {
    const service = yield* ImagesService
    return handlers.handle("uploadImage", ({ payload, request }) =>
      respond(
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          const bytes = yield* uploadedFile(request, payload, "image", "image_missing")
          return yield* service.upload(user, bytes)
        })
      )
    )
  })
)

/** Photo uploads: the REST handler with its own service. */
export const ImagesLive = ImagesHttp.pipe(Layer.provide(ImagesService.Default))
