/** Polls `read` until it gives a value, or fails naming `what` once `timeoutMs` has passed. */
export const eventually = async <A>(
  read: () => Promise<A | undefined> | A | undefined,
  what: string,
  timeoutMs = 30_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}
