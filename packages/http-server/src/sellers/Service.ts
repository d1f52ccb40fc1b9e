import {
  applyForSellerProfile,
  approveSellerProfile,
  EventOutbox,
  Ids,
  NotFound,
  rejectSellerProfile,
  SellerProfileExists,
  SellerProfileRepo,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { requireAdmin } from "../admin/Policy.js"
import { publiclyVisible } from "./Policy.js"

export interface SellerApplication {
  readonly businessName: string
  readonly locationDistrict: string
  readonly locationCity: string | null
  readonly bio: string | null
}

/** Applying for a seller profile, its public view, and the admin's review. */
export class SellerProfilesService extends Effect.Service<SellerProfilesService>()("SellerProfiles/Service", {
  effect: Effect.gen(function* () {
    const profiles = yield* SellerProfileRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const notFound = new NotFound({ resource: "seller_profile" })
    const lockProfile = (id: string) =>
      Effect.flatMap(profiles.lock(id), Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed }))

    /** A user without a profile applies; of two racing applications of one user, one wins. */
    const apply = (user: User, application: SellerApplication) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const existing = Option.getOrNull(yield* profiles.findByUserId(user.id))
          const { state, events } = yield* applyForSellerProfile(
            { id: yield* ids.next, userId: user.id, ...application },
            existing,
            at
          )
          if (!(yield* profiles.insertIfAbsent(state))) return yield* Effect.fail(new SellerProfileExists())
          yield* outbox.append(events, at)
          return state
        })
      )

    /** An approved profile, for anybody; any other state is not found. */
    const getPublic = (id: string) =>
      Effect.flatMap(
        profiles.findById(id),
        Option.match({ onNone: () => Effect.fail(notFound), onSome: publiclyVisible })
      )

    const approve = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const profile = yield* lockProfile(id)
          yield* requireAdmin(caller)
          const { state, events } = yield* approveSellerProfile(profile, at)
          yield* profiles.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, approvedAt: at }
        })
      )

    const reject = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const profile = yield* lockProfile(id)
          yield* requireAdmin(caller)
          const { state, events } = yield* rejectSellerProfile(profile)
          yield* profiles.update(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    return { apply, getPublic, approve, reject } as const
  })
}) {}
