import { PushOutcome, PushSender } from "@talab/core"
import { type Context, Effect, Layer } from "effect"

/** A PushSender that logs each push and reports it delivered. For development and operators without a provider. */
export const make = (): Effect.Effect<Context.Tag.Service<PushSender>> =>
  Effect.succeed(
    PushSender.of({
      send: (push) =>
        Effect.logInfo("Push sent").pipe(
          Effect.annotateLogs({
            user_id: push.userId,
            platform: push.platform,
            push_token: push.pushToken,
            type: push.type,
            title: push.title,
            body: push.body,
            data: JSON.stringify(push.data)
          }),
          Effect.as(PushOutcome.Delivered())
        )
    })
  )

/** Layer of {@link make}. */
export const layer = (): Layer.Layer<PushSender> => Layer.effect(PushSender, make())
