/*
 * vitest global setup, the last one: waits for the server's bundle that server-build.global.ts started building,
 * so it builds beside the other setups (the run's databases) yet is there before any worker starts. A worker that
 * found it missing waited for it synchronously (child-server.ts), its event loop blocked: on a loaded machine past
 * vitest's 60 s for a worker's report to reach the main process, which failed the run with "Timeout calling
 * onTaskUpdate" though every test passed.
 */
export default async function setup() {
  await (globalThis as { talabServerBuilt?: Promise<unknown> }).talabServerBuilt
}
