// Preloaded into the server the memory scenario measures: SIGUSR2 collects garbage (node --expose-gc) and
// reports the heap on stderr, so an RSS read a moment later is not inflated by garbage not yet collected.
process.on("SIGUSR2", () => {
  globalThis.gc?.()
  const { heapUsed, external, arrayBuffers } = process.memoryUsage()
  const mb = (n) => (n / 1024 / 1024).toFixed(1)
  process.stderr.write(
    `memory: heap used ${mb(heapUsed)} MB, external ${mb(external)} MB, array buffers ${mb(arrayBuffers)} MB\n`
  )
})
