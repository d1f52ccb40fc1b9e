/** Keeps this thread busy for `ms`, as a loaded machine may. */
export const busyFor = (ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {}
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
    busyFor(blockMs)
    setImmediate(turn)
  }
  setImmediate(turn)
  return () => {
    stalling = false
  }
}
