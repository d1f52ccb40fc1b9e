import * as Layer from "effect/Layer"
import { MemoryOtpRepo, MemorySessionRepo } from "../auth/MemoryRepo.js"
import { MemoryConversationRepo, MemoryMessageRepo } from "../chat/MemoryRepo.js"
import { MemoryDealRepo } from "../deals/MemoryRepo.js"
import { MemoryImageRepo } from "../images/MemoryRepo.js"
import { MemoryOfferRepo } from "../offers/MemoryRepo.js"
import { Ids } from "../platform/Ids.js"
import { MemoryFileStore } from "../platform/MemoryFileStore.js"
import { memoryRateLimiterLayer } from "../platform/MemoryRateLimiter.js"
import { MemorySenders } from "../platform/MemorySenders.js"
import { MemoryRatingRepo } from "../ratings/MemoryRepo.js"
import { MemoryReportRepo } from "../reports/MemoryRepo.js"
import { MemoryRequestRepo } from "../requests/MemoryRepo.js"
import { MemorySellerProfileRepo } from "../sellers/MemoryRepo.js"
import { MemoryDeviceTokenRepo, MemoryUserRepo } from "../users/MemoryRepo.js"
import { MemoryEventOutbox } from "./Outbox.js"
import { MemoryStoreLayer } from "./Store.js"
import { MemoryTransactor } from "./Transactor.js"

/**
 * Every repository port, the {@link Transactor} and the {@link EventOutbox} over one fresh {@link MemoryStore}
 * (provided too, to read what was stored). Each build of the layer is an empty database of its own.
 */
export const InMemoryRepositories = Layer.mergeAll(
  MemoryTransactor,
  MemoryUserRepo,
  MemorySessionRepo,
  MemoryOtpRepo,
  MemoryDeviceTokenRepo,
  MemorySellerProfileRepo,
  MemoryRequestRepo,
  MemoryOfferRepo,
  MemoryDealRepo,
  MemoryRatingRepo,
  MemoryReportRepo,
  MemoryConversationRepo,
  MemoryMessageRepo,
  MemoryImageRepo,
  MemoryEventOutbox
).pipe(Layer.provideMerge(MemoryStoreLayer))

/**
 * Every port of `@talab/core` in memory, nothing left to provide: {@link InMemoryRepositories}, random
 * {@link Ids}, an in-process {@link RateLimiter}, a {@link FileStore} in a map, and SMS and push senders that
 * record into {@link SentMessages}. For tests, and for embedding core where nothing needs to outlive the process.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const users = yield* UserRepo
 *   return yield* users.insertOrGet(newUser({ id: "u-1", phoneNumber: "+966500000001", isAdmin: false, now: new Date() }))
 * })
 * Effect.runPromise(Effect.provide(program, Memory.InMemoryPorts))
 */
export const InMemoryPorts = Layer.mergeAll(
  InMemoryRepositories,
  MemoryFileStore,
  memoryRateLimiterLayer(),
  MemorySenders,
  Ids.Random
)
