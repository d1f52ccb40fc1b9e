import { PushOutcome, PushSender } from "@talab/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { maskToken } from "../LogMasks.js"

/**
 * A PushSender that logs each push and reports it delivered. For development and operators without a provider.
 * The info line names the push, its recipient and a masked token; its text (a message's preview among others)
 * is on a debug line only.
 */
const make = (): Effect.Effect<Context.Tag.Service<PushSender>> =>
  Effect.succeed(
    PushSender.of({
      send: (push) =>
        Effect.logInfo("Push not sent (PUSH_PROVIDER=log)").pipe(
          Effect.annotateLogs({
            user_id: push.userId,
            platform: push.platform,
            push_token: maskToken(push.pushToken),
            type: push.type
          }),
          Effect.zipRight(
            Effect.logDebug("Push text").pipe(
              Effect.annotateLogs({ title: push.title, body: push.body, data: JSON.stringify(push.data) })
            )
          ),
          Effect.as(PushOutcome.Delivered())
        )
    })
  )

/** Layer of {@link make}. */
export const layer = (): Layer.Layer<PushSender> => Layer.effect(PushSender, make())
