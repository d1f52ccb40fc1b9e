import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

/*
 * vitest global setup: a directory where each worker writes how many REST calls and WebSocket frames it held to
 * the served documents (protocol-check.setup.ts), and after the last file, their sum printed for CI's log.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), "talab-document-checks-"))
  project.provide("talabDocumentChecks", directory)
  return async () => {
    let calls = 0
    let frames = 0
    for (const file of await readdir(directory)) {
      const counts = JSON.parse(await readFile(join(directory, file), "utf8")) as { calls: number; frames: number }
      calls += counts.calls
      frames += counts.frames
    }
    await rm(directory, { recursive: true, force: true })
    console.log(
      `Held to the served documents: ${calls} REST calls (OpenAPI) and ${frames} WebSocket frames (AsyncAPI); ` +
        "a violation fails the test that made it."
    )
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    talabDocumentChecks: string
  }
}
