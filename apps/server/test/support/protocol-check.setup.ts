import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, inject } from "vitest"
import { apiCallCount, takeApiViolations } from "./api-contract.js"
import { frameCount, takeFrameViolations } from "./frame-contract.js"

/* A call, a frame or a close code outside the served documents fails the test that received it. */
afterEach(() => {
  const violations = [...takeApiViolations(), ...takeFrameViolations()]
  if (violations.length > 0) {
    throw new Error(`The server did what its documents do not describe:\n${violations.join("\n")}`)
  }
})

/* This worker's counts so far (its modules outlive a file), for the run's total (document-checks.global.ts). */
afterAll(() => {
  const directory = inject("talabDocumentChecks")
  if (directory === undefined) return
  const counts = { calls: apiCallCount(), frames: frameCount() }
  writeFileSync(join(directory, `${process.pid}.json`), JSON.stringify(counts))
})
