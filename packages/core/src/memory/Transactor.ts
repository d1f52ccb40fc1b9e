import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Transactor } from "../shared/Transactor.js"
import { MemoryStore } from "./Store.js"

/**
 * {@link Transactor} over the {@link MemoryStore}: all or nothing (a failure, defect or interruption keeps none
 * of the writes), one transaction at a time, a nested one joining the outer one as a savepoint.
 */
export const MemoryTransactor = Layer.effect(
  Transactor,
  Effect.map(MemoryStore, (store) => Transactor.of({ transaction: store.transaction }))
)
