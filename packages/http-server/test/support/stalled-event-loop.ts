const nobodyNotifies = new Int32Array(new SharedArrayBuffer(4))

/**
 * Holds this thread for `ms`, as a loaded machine may: no callback runs meanwhile. The thread sleeps rather than
 * spins, so the other workers of the run keep the cores.
 */
export const blockThreadFor = (ms: number) => {
  Atomics.wait(nobodyNotifies, 0, 0, ms)
}

/**
 * Keeps the event loop blocked in `blockMs` pieces, one per turn, as a start does that boots the embedded database
 * beside the Redis connection, or a loaded machine, until the returned function is called. Within each turn the
 * timers run before the sockets are read, so a command whose budget is shorter than a piece times out though its
 * answer has arrived.
 */
export const stallEventLoop = (blockMs: number) => {
  let stalling = true
  const turn = () => {
    if (!stalling) return
    blockThreadFor(blockMs)
    setImmediate(turn)
  }
  setImmediate(turn)
  return () => {
    stalling = false
  }
}
