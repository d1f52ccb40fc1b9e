import { variables } from "./Settings.js"

const START =
  "<!-- environment-variables: generated from packages/http-server/src/config/Settings.ts by `pnpm docs:config` -->"
const END = "<!-- environment-variables: end -->"

/** The README's table of environment variables: one row per declared variable, columns padded to line up. */
const environmentTable = (): string => {
  const rows = [
    ["variable", "default", "meaning"],
    ...Object.entries(variables).map(([name, variable]) => [`\`${name}\``, variable.shownDefault, variable.doc])
  ]
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`
  const [header, ...body] = rows
  return [line(header!), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n")
}

/** `readme` with the table between its markers rewritten; fails when the markers are missing. */
export const withEnvironmentTable = (readme: string): string => {
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start === -1 || end < start) throw new Error(`README.md lacks the markers ${START} … ${END}`)
  return `${readme.slice(0, start)}${START}\n\n${environmentTable()}\n\n${readme.slice(end)}`
}
