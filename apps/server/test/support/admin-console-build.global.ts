import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/*
 * The admin console's build, once per run before the workers start: a server started from the workspace's
 * sources serves apps/admin-console/dist at /admin/ (http-server's server/AdminConsole.ts), so a clean clone's
 * `pnpm test` has the page its browser suite opens. Under a second of esbuild.
 */
const consoleBuild = fileURLToPath(new URL("../../../admin-console/scripts/build.mjs", import.meta.url))

export default function setup() {
  execFileSync(process.execPath, [consoleBuild], { stdio: ["ignore", "ignore", "inherit"] })
}
