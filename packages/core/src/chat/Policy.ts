import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Forbidden, NotFound } from "../shared/Errors.js"
import { type Conversation, isParty } from "./Conversation.js"

/** Only the buyer and the seller of a conversation may read or write it; an unknown one is not found. */
export const asConversationParty = <C extends Conversation>(
  conversation: Option.Option<C>,
  userId: string
): Effect.Effect<C, NotFound | Forbidden> =>
  Option.match(conversation, {
    onNone: () => Effect.fail(new NotFound({ resource: "conversation" })),
    onSome: (party) => (isParty(party, userId) ? Effect.succeed(party) : Effect.fail(new Forbidden()))
  })
