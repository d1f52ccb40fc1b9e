import * as Metric from "effect/Metric"
import * as MetricKeyType from "effect/MetricKeyType"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"

/*
 * Effect's metric registry in the Prometheus text exposition format (version 0.0.4). Only the server's own
 * metrics (`talab_*`) are printed: the registry is process-wide and a library may register its own.
 */

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

const escapeLabelValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const formatNumber = (value: number | bigint) => {
  if (typeof value === "bigint") return value.toString()
  if (Number.isNaN(value)) return "NaN"
  if (value === Number.POSITIVE_INFINITY) return "+Inf"
  if (value === Number.NEGATIVE_INFINITY) return "-Inf"
  return String(value)
}

const labelText = (labels: ReadonlyArray<readonly [string, string]>) =>
  labels.length === 0 ? "" : `{${labels.map(([key, value]) => `${key}="${escapeLabelValue(value)}"`).join(",")}}`

const typeOf = (pair: MetricPair.MetricPair.Untyped) => {
  const keyType = pair.metricKey.keyType
  if (MetricKeyType.isCounterKey(keyType)) return "counter"
  if (MetricKeyType.isGaugeKey(keyType)) return "gauge"
  if (MetricKeyType.isHistogramKey(keyType)) return "histogram"
  return undefined
}

const samplesOf = (pair: MetricPair.MetricPair.Untyped): Array<string> => {
  const name = pair.metricKey.name
  const labels = pair.metricKey.tags.map((tag) => [tag.key, tag.value] as const)
  const state = pair.metricState
  if (MetricState.isCounterState(state)) return [`${name}${labelText(labels)} ${formatNumber(state.count)}`]
  if (MetricState.isGaugeState(state)) return [`${name}${labelText(labels)} ${formatNumber(state.value)}`]
  if (MetricState.isHistogramState(state)) {
    const lines = state.buckets.map(
      ([bound, cumulative]) => `${name}_bucket${labelText([...labels, ["le", formatNumber(bound)]])} ${cumulative}`
    )
    if (!state.buckets.some(([bound]) => bound === Number.POSITIVE_INFINITY)) {
      lines.push(`${name}_bucket${labelText([...labels, ["le", "+Inf"]])} ${state.count}`)
    }
    lines.push(`${name}_sum${labelText(labels)} ${formatNumber(state.sum)}`)
    lines.push(`${name}_count${labelText(labels)} ${state.count}`)
    return lines
  }
  return []
}

/** The `talab_*` metrics of the registry as one exposition, each family once with its HELP and TYPE. */
export const prometheusText = (): string => {
  const families = new Map<string, { help: string; type: string; samples: Array<string> }>()
  for (const pair of Metric.unsafeSnapshot()) {
    const name = pair.metricKey.name
    const type = typeOf(pair)
    if (!name.startsWith("talab_") || type === undefined) continue
    let family = families.get(name)
    if (family === undefined) {
      family = {
        help: pair.metricKey.description._tag === "Some" ? pair.metricKey.description.value : name,
        type,
        samples: []
      }
      families.set(name, family)
    }
    family.samples.push(...samplesOf(pair))
  }
  const out: Array<string> = []
  for (const [name, family] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`, ...family.samples)
  }
  return `${out.join("\n")}\n`
}
