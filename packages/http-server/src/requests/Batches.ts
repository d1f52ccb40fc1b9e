import { type RequestInput, Requests, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { batchingOn, makeWriteBatches, WRITE_BATCH_LIMITS } from "../db/WriteBatches.js"

interface Post {
  readonly buyer: User
  readonly input: RequestInput
}

type Posted = Effect.Effect.Success<ReturnType<Requests["create"]>>
type PostError = Effect.Effect.Error<ReturnType<Requests["create"]>>

/**
 * Posts a request as core's `Requests.create` does, in one transaction and one statement with the requests
 * posted at the same moment (`REQUEST_BATCH=on`, the default). A request with photos is posted alone: a photo
 * that is not the buyer's to attach fails its own request only. Should a batch fail as a whole, each of its
 * requests is posted again alone, so whatever failed fails alone.
 */
export const makeRequestPosts = Effect.gen(function* () {
  const requests = yield* Requests
  const alone = ({ buyer, input }: Post) => requests.create(buyer, input)
  if (!(yield* batchingOn((config) => config.requestBatch)))
    return (buyer: User, input: RequestInput) => alone({ buyer, input })
  const batched = yield* makeWriteBatches<Post, Posted, PostError>("requests", WRITE_BATCH_LIMITS, {
    batch: (posts) => Effect.map(requests.createAll(posts), (posted) => posted.map(Exit.succeed)),
    alone
  })
  return (buyer: User, input: RequestInput) =>
    input.photoIds === undefined || input.photoIds.length === 0 ? batched({ buyer, input }) : alone({ buyer, input })
})
