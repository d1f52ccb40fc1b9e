#!/usr/bin/env node
// `pnpm talab` and `pnpm start`: build the server (apps/server/dist) only when something it is built from changed
// since the last build, so a command on a current build starts at once instead of after a full build.
//
//   node scripts/build-server-when-stale.mjs [--root DIR] [-- build command…]
//
// The build counts as current when dist/main.js, dist/cli.js and the admin console (dist/admin-console) exist and no
// input (a file or folder of the server's, the console's and every workspace package's sources, their manifests and
// tsconfigs, the tsup config, the console's build script, the lockfile)
// was modified after the last build through this script started. Plain Node, no TypeScript loader: its cost is
// the time to stat the sources. The build's own output goes to stderr, so a command's stdout stays its own.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const outputs = ["apps/server/dist/main.js", "apps/server/dist/cli.js", "apps/server/dist/admin-console/index.html"]
// Written after a successful build with the build's start time as its mtime: a source saved while the build ran
// is newer than it, so the next run builds again.
const stampPath = "apps/server/node_modules/.cache/talab-server-build"

const args = process.argv.slice(2)
let root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
if (args[0] === "--root") {
  root = resolve(args[1])
  args.splice(0, 2)
}
const separator = args.indexOf("--")
const command = separator === -1 ? ["pnpm", "--filter", "@talab/server", "build"] : args.slice(separator + 1)

const listDirectory = (path) => {
  try {
    return readdirSync(path, { withFileTypes: true })
  } catch {
    return []
  }
}

/** Every input's path: the workspace packages' folders each hold src/, package.json and tsconfig.json. */
function* inputs() {
  for (const name of ["pnpm-lock.yaml", "apps/server/tsup.config.ts", "apps/admin-console/scripts/build.mjs"])
    yield join(root, name)
  for (const entry of listDirectory(root)) if (/^tsconfig.*\.json$/.test(entry.name)) yield join(root, entry.name)
  // The console is built into the server's dist (apps/server/tsup.config.ts).
  const packageFolders = [join(root, "apps/server"), join(root, "apps/admin-console")]
  for (const entry of listDirectory(join(root, "packages")))
    if (entry.isDirectory()) packageFolders.push(join(root, "packages", entry.name))
  for (const folder of packageFolders) {
    yield join(folder, "package.json")
    yield join(folder, "tsconfig.json")
    yield* tree(join(folder, "src"))
  }
}

/** A folder, everything under it, and the folders themselves (a deleted file changes its folder's mtime). */
function* tree(folder) {
  if (!existsSync(folder)) return
  yield folder
  for (const entry of listDirectory(folder)) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) yield* tree(path)
    else yield path
  }
}

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return undefined
  }
}

const staleBecause = () => {
  const missing = outputs.find((output) => mtime(join(root, output)) === undefined)
  if (missing) return `${missing} is missing`
  const builtAt = mtime(join(root, stampPath))
  if (builtAt === undefined) return "no build through this script recorded"
  for (const input of inputs()) {
    const modified = mtime(input)
    if (modified !== undefined && modified > builtAt) return `${relative(root, input)} changed since the last build`
  }
  return undefined
}

const reason = staleBecause()
if (reason === undefined) {
  process.stderr.write("server build: current, not rebuilt\n")
  process.exit(0)
}
process.stderr.write(`server build: ${reason}; building\n`)
const startedAt = new Date()
const built = spawnSync(command[0], command.slice(1), { cwd: root, stdio: ["inherit", 2, 2] })
if (built.error) throw built.error
if (built.status !== 0) process.exit(built.status ?? 1)
const stamp = join(root, stampPath)
mkdirSync(dirname(stamp), { recursive: true })
writeFileSync(stamp, `${startedAt.toISOString()}\n`)
utimesSync(stamp, startedAt, startedAt)
