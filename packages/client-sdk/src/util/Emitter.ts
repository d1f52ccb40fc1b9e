/** A listener of one event. */
export type Listener<Payload> = (payload: Payload) => void

/**
 * A small typed event emitter that works everywhere (no Node `events`, no `EventTarget`, which React
 * Native lacks). A listener that throws does not stop the others.
 */
export class Emitter<Events extends Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<Listener<any>>>()

  /** Adds a listener; returns a function that removes it. */
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void {
    let set = this.listeners.get(event)
    if (!set) {
      set = new Set()
      this.listeners.set(event, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }

  /** Calls every listener of an event with the payload. */
  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(payload)
      } catch (error) {
        reportListenerError(error)
      }
    }
  }
}

const reportListenerError = (error: unknown) => {
  // Rethrown outside the emitting call so the app's error reporting sees it without breaking the SDK.
  setTimeout(() => {
    throw error
  }, 0)
}
