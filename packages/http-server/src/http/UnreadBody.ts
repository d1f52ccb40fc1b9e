import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"

/** How much of a refused body, and for how long, is read and dropped before the refusal is sent. */
const DRAIN_MAX_BYTES = 8 * 1024 * 1024
const DRAIN_MAX_MS = 10_000

/**
 * Reads and drops what is left of a request's body, up to a bound, before its 413 is sent: a
 * socket closed while the client is still sending is reset, and the reset takes the answer with it. A client
 * that keeps sending past the bound (in bytes or time) is cut off instead.
 */
export const drainUnreadBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<void>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    if (incoming.readableEnded || incoming.destroyed) return resume(Effect.void)
    let drained = 0
    const done = () => {
      clearTimeout(timer)
      incoming.off("data", onData).off("end", done).off("close", done).off("error", done)
      resume(Effect.void)
    }
    const cutOff = () => {
      incoming.destroy()
      done()
    }
    const onData = (chunk: Buffer) => {
      drained += chunk.length
      if (drained > DRAIN_MAX_BYTES) cutOff()
    }
    const timer = setTimeout(cutOff, DRAIN_MAX_MS)
    incoming.on("data", onData).once("end", done).once("close", done).once("error", done)
    // A reader that stopped part-way (the multipart parser) may have left a `readable` listener, which keeps the
    // stream paused whatever `resume` says: nothing reads this body any more.
    incoming.removeAllListeners("readable")
    incoming.resume()
    return Effect.sync(() => {
      clearTimeout(timer)
      incoming.off("data", onData).off("end", done).off("close", done).off("error", done)
    })
  })
