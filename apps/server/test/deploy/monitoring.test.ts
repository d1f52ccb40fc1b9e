import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"

/*
 * The Grafana dashboard and the Prometheus alert rules in deploy/ name only metrics the server defines (a renamed
 * metric would leave a panel empty and an alert silent, and neither says so). The rules' syntax and behaviour are
 * checked by promtool in CI (.ci/run); this holds the names.
 */
const root = new URL("../../../../", import.meta.url).pathname
const read = (path: string) => readFileSync(join(root, path), "utf8")

/** Every metric the server declares (`Metric.counter("talab_…")` and the like), with the series a histogram adds. */
const definedSeries = () => {
  const names = new Set<string>()
  const walk = (directory: string) => {
    for (const entry of readdirSync(join(root, directory), { withFileTypes: true })) {
      const path = join(directory, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) {
        for (const [, kind, name] of read(path).matchAll(
          /Metric\.(counter|gauge|histogram)\(\s*"(talab_[a-z0-9_]+)"/g
        )) {
          names.add(name!)
          if (kind === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name! + suffix)
        }
      }
    }
  }
  walk("packages/http-server/src")
  return names
}

const referenced = (expressions: ReadonlyArray<string>) =>
  new Set(expressions.flatMap((expression) => [...expression.matchAll(/\btalab_[a-z0-9_]+/g)].map(([name]) => name)))

describe("monitoring in deploy/", () => {
  const defined = definedSeries()

  it("finds the server's metrics, the new ones among them", () => {
    for (const name of [
      "talab_process_resident_memory_bytes",
      "talab_outbox_oldest_unpublished_age_seconds",
      "talab_redis_up",
      "talab_ws_handshakes_total",
      "talab_ws_closes_total",
      "talab_gc_duration_seconds_sum"
    ]) {
      expect(defined).toContain(name)
    }
  })

  it("alerts only on metrics the server defines, and on each operational one", () => {
    const rules = parse(read("deploy/prometheus/alerts.yml")) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>
    }
    const names = referenced(rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr)))
    expect([...names].filter((name) => !defined.has(name))).toEqual([])
    for (const name of [
      "talab_outbox_oldest_unpublished_age_seconds",
      "talab_redis_up",
      "talab_process_open_fds",
      "talab_ws_closes_total",
      "talab_ws_handshakes_total"
    ]) {
      expect(names).toContain(name)
    }
  })

  it("draws only metrics the server defines, every one of them", () => {
    const dashboard = JSON.parse(read("deploy/grafana/talab.json")) as {
      panels: Array<{ targets: Array<{ expr: string }> }>
      templating: { list: Array<{ definition?: string }> }
    }
    const names = referenced([
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
      ...dashboard.templating.list.flatMap((variable) => variable.definition ?? [])
    ])
    expect([...names].filter((name) => !defined.has(name))).toEqual([])
    const drawnFamilies = new Set([...names].map((name) => name.replace(/_(bucket|sum|count)$/, "")))
    const undrawn = [...defined].filter((name) => !/_(bucket|sum|count)$/.test(name) && !drawnFamilies.has(name))
    expect(undrawn).toEqual([])
  })
})
