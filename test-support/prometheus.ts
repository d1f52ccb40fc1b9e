/*
 * A strict reader of the Prometheus text exposition format (0.0.4): what a scraper accepts, and a little
 * more that it checks (each family declared once, before its samples, samples of a family together,
 * histogram buckets cumulative and ending at +Inf equal to _count). Throws on the first line it cannot read.
 */

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>
  readonly help: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
  /** The value of the one sample with this name and exactly these labels; undefined when there is none. */
  readonly value: (name: string, labels?: Record<string, string>) => number | undefined
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (text: string, line: number) => {
  if (text === "+Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (text === "NaN") return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${text}`)
  return Number(text)
}

const parseLabels = (text: string, line: number): Record<string, string> => {
  const labels: Record<string, string> = {}
  let rest = text
  while (rest.length > 0) {
    const match = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest)
    if (match === null) throw new Error(`line ${line}: bad labels ${text}`)
    const [whole, name, raw, comma] = match
    if (!LABEL_NAME.test(name!)) throw new Error(`line ${line}: bad label name ${name}`)
    if (name! in labels) throw new Error(`line ${line}: label ${name} twice`)
    labels[name!] = raw!.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c))
    rest = rest.slice(whole.length)
    if (comma === "" && rest.length > 0) throw new Error(`line ${line}: bad labels ${text}`)
  }
  return labels
}

/** The family a sample belongs to: a histogram's _bucket, _sum and _count samples belong to its name. */
const familyOf = (name: string, types: ReadonlyMap<string, string>) => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length)
    if (name.endsWith(suffix) && (types.get(base) === "histogram" || types.get(base) === "summary")) return base
  }
  return name
}

const key = (name: string, labels: Readonly<Record<string, string>>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",")}}`

export const parsePrometheusText = (text: string): Exposition => {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline")
  const types = new Map<string, string>()
  const help = new Map<string, string>()
  const samples: Array<Sample> = []
  const closedFamilies = new Set<string>()
  let currentFamily: string | undefined
  const lines = text.slice(0, -1).split("\n")
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "") return
    const comment = /^#\s+(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(raw)
    if (comment !== null) {
      const [, kind, name, rest] = comment
      if (!METRIC_NAME.test(name!)) throw new Error(`line ${line}: bad metric name ${name}`)
      if (kind === "TYPE") {
        if (!TYPES.has(rest!)) throw new Error(`line ${line}: bad type ${rest}`)
        if (types.has(name!)) throw new Error(`line ${line}: second TYPE for ${name}`)
        if (samples.some((s) => familyOf(s.name, types) === name)) throw new Error(`line ${line}: TYPE after samples`)
        types.set(name!, rest!)
      } else {
        if (help.has(name!)) throw new Error(`line ${line}: second HELP for ${name}`)
        help.set(name!, rest!)
      }
      return
    }
    if (raw.startsWith("#")) return
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(raw)
    if (sample === null) throw new Error(`line ${line}: cannot read ${JSON.stringify(raw)}`)
    const [, name, labelText, valueText] = sample
    const family = familyOf(name!, types)
    if (family !== currentFamily) {
      if (closedFamilies.has(family)) throw new Error(`line ${line}: samples of ${family} are not together`)
      if (currentFamily !== undefined) closedFamilies.add(currentFamily)
      currentFamily = family
    }
    samples.push({ name: name!, labels: parseLabels(labelText ?? "", line), value: parseValue(valueText!, line) })
  })

  const byKey = new Map<string, number>()
  for (const s of samples) {
    const k = key(s.name, s.labels)
    if (byKey.has(k)) throw new Error(`duplicate series ${k}`)
    byKey.set(k, s.value)
  }

  // Histograms: per series, buckets non-decreasing in `le`, ending with +Inf equal to _count.
  for (const [name, type] of types) {
    if (type !== "histogram") continue
    const series = new Map<string, Array<{ le: number; value: number }>>()
    for (const s of samples.filter((s) => s.name === `${name}_bucket`)) {
      const { le, ...rest } = s.labels
      if (le === undefined) throw new Error(`${name}_bucket without le`)
      const k = key(name, rest)
      series.set(k, [...(series.get(k) ?? []), { le: parseValue(le, 0), value: s.value }])
    }
    for (const [k, buckets] of series) {
      const sorted = [...buckets].sort((a, b) => a.le - b.le)
      sorted.forEach((b, i) => {
        if (i > 0 && b.value < sorted[i - 1]!.value) throw new Error(`${k}: buckets not cumulative`)
      })
      const last = sorted.at(-1)!
      if (last.le !== Number.POSITIVE_INFINITY) throw new Error(`${k}: no +Inf bucket`)
      const count = byKey.get(k.replace(name, `${name}_count`))
      if (count !== last.value) throw new Error(`${k}: +Inf bucket ${last.value} but _count ${count}`)
    }
  }

  return {
    types,
    help,
    samples,
    value: (name, labels = {}) => byKey.get(key(name, labels))
  }
}
