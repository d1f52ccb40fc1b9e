import * as Either from "effect/Either"
import type { DomainEvent } from "./Events.js"

/** The result of a successful transition: the next state and the events it raises. */
export interface Transitioned<S> {
  readonly state: S
  readonly events: ReadonlyArray<DomainEvent>
}

/** A transition either moves to a next state with events or fails with a typed domain error. */
export type Transition<S, E> = Either.Either<Transitioned<S>, E>

/** A successful transition to `state`, raising `events`. */
export const moved = <S>(state: S, events: ReadonlyArray<DomainEvent> = []): Transition<S, never> =>
  Either.right({ state, events })
