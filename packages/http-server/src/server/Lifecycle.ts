import * as Context from "effect/Context"

/** Where the server is in its shutdown, for the parts of the app that act on it. */
interface Lifecycle {
  /** True from the moment the server starts draining (SIGTERM) on. */
  readonly isDraining: () => boolean
  /** Runs `listener` once when draining starts; at once if it already has. */
  readonly onDrain: (listener: () => void) => void
  /** Milliseconds left before the shutdown deadline: Infinity until draining starts. */
  readonly remainingMs: () => number
}

const neverDraining: Lifecycle = { isDraining: () => false, onDrain: () => {}, remainingMs: () => Infinity }

/**
 * The lifecycle of the server the app runs on. A reference with a default, so an app served by a server that
 * never drains (the testkit's, `NodeHttpServer.layerTest`) needs nothing more.
 */
export class ServerLifecycle extends Context.Reference<ServerLifecycle>()("Server/Lifecycle", {
  defaultValue: () => neverDraining
}) {}

/** A lifecycle that starts draining when `startDrain` is called, with `timeoutMs` to finish. */
export const makeLifecycle = (timeoutMs: number) => {
  let deadline: number | undefined
  const listeners: Array<() => void> = []
  const lifecycle: Lifecycle = {
    isDraining: () => deadline !== undefined,
    onDrain: (listener) => {
      if (deadline === undefined) listeners.push(listener)
      else listener()
    },
    remainingMs: () => (deadline === undefined ? Infinity : Math.max(0, deadline - Date.now()))
  }
  const startDrain = () => {
    if (deadline !== undefined) return
    deadline = Date.now() + timeoutMs
    for (const listener of listeners.splice(0)) listener()
  }
  return { lifecycle, startDrain }
}
