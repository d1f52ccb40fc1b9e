import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, MESSAGES_LIMIT_DEFAULT } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { Gateway } from "../realtime/Gateway.js"
import { WebSocketRoute } from "../realtime/Route.js"
import { ChatService } from "./Service.js"

const ChatHttp = HttpApiBuilder.group(Api, "chat", (handlers) =>
  Effect.gen(function* () {
    const chat = yield* ChatService
    return handlers
      .handle("listMine", ({ urlParams }) =>
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          const page = pageRequest(urlParams)
          const { items, total } = yield* chat.listMine(user.id, page)
          return { conversations: items, pagination: paginationFor(page, total) }
        })
      )
      .handle("listMessages", ({ path, urlParams }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { hasMore, messages } = yield* chat.readMessages(user.id, path.id, {
              before: urlParams.before,
              afterSeq: urlParams.after_seq,
              limit: urlParams.limit ?? MESSAGES_LIMIT_DEFAULT
            })
            return { messages, has_more: hasMore }
          })
        )
      )
      .handle("sendMessage", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            return yield* chat.sendMessage(user.id, path.id, payload)
          })
        )
      )
      .handle("markRead", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const marked = yield* chat.markReadUpTo(user.id, path.id, payload.up_to_seq)
            return marked
          })
        )
      )
  })
)

/** Chat over REST and over `/ws` (realtime/Route.ts, Gateway.ts): two doors to one ChatService. */
export const ChatLive = Layer.mergeAll(ChatHttp, WebSocketRoute.pipe(Layer.provide(Gateway.Default))).pipe(
  Layer.provide(ChatService.Default)
)
