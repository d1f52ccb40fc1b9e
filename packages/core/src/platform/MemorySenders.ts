import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { type Push, PushOutcome, PushSender } from "./PushSender.js"
import { type Sms, SmsSender } from "./SmsSender.js"

/** What the in-memory {@link SmsSender} and {@link PushSender} were given, oldest first: nothing leaves the process. */
export class SentMessages extends Context.Tag("@talab/core/SentMessages")<
  SentMessages,
  {
    readonly sms: Effect.Effect<ReadonlyArray<Sms>>
    readonly pushes: Effect.Effect<ReadonlyArray<Push>>
  }
>() {}

/** {@link SmsSender} and {@link PushSender} that keep what they are given in {@link SentMessages}; every push is delivered. */
export const MemorySenders: Layer.Layer<SmsSender | PushSender | SentMessages> = Layer.effectContext(
  Effect.gen(function* () {
    const sms = yield* Ref.make(Chunk.empty<Sms>())
    const pushes = yield* Ref.make(Chunk.empty<Push>())
    return Context.make(
      SentMessages,
      SentMessages.of({
        sms: Effect.map(Ref.get(sms), Chunk.toReadonlyArray),
        pushes: Effect.map(Ref.get(pushes), Chunk.toReadonlyArray)
      })
    ).pipe(
      Context.add(SmsSender, SmsSender.of({ send: (message) => Ref.update(sms, Chunk.append(message)) })),
      Context.add(
        PushSender,
        PushSender.of({ send: (push) => Effect.as(Ref.update(pushes, Chunk.append(push)), PushOutcome.Delivered()) })
      )
    )
  })
)
