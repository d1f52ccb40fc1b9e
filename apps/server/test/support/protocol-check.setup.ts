import { afterEach } from "vitest"
import { takeFrameViolations } from "./frame-contract.js"

/* A frame or close code outside the AsyncAPI document fails the test whose socket received it. */
afterEach(() => {
  const violations = takeFrameViolations()
  if (violations.length > 0) {
    throw new Error(`The server sent what its AsyncAPI document does not describe:\n${violations.join("\n")}`)
  }
})
