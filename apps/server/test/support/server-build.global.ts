import { randomBytes } from "node:crypto"
import { rm, rmdir } from "node:fs/promises"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run's bundle of the server goes (child-server.ts builds it on first use). */
    talabServerBuild: string
  }
}

/**
 * vitest global setup: a folder for this run's bundle of the server (child-server.ts), inside apps/server so that
 * the bundle finds the server's node_modules; after the last file, it is removed with the data directories copied
 * for the suites.
 */
export default function setup(project: TestProject) {
  const folder = fileURLToPath(
    new URL(`../../.test-build/${process.pid}-${randomBytes(4).toString("hex")}`, import.meta.url)
  )
  project.provide("talabServerBuild", folder)
  return async () => {
    for (const path of [folder, `${folder}.data`, `${folder}.lock`]) await rm(path, { recursive: true, force: true })
    // .test-build itself, unless another run is using it.
    await rmdir(dirname(folder)).catch(() => undefined)
  }
}
