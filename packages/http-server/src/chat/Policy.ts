import { type Conversation, Forbidden, isParty, NotFound } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** Only the buyer and the seller of a conversation may read or write it; an unknown one is 404. */
export const asParty = <C extends Conversation>(
  conversation: Option.Option<C>,
  userId: string
): Effect.Effect<C, NotFound | Forbidden> =>
  Option.match(conversation, {
    onNone: () => Effect.fail(new NotFound({ resource: "conversation" })),
    onSome: (found) => (isParty(found, userId) ? Effect.succeed(found) : Effect.fail(new Forbidden()))
  })
