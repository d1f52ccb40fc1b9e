import { readdirSync, readFileSync } from "node:fs"
import { constants, type EventLoopUtilization, PerformanceObserver, performance } from "node:perf_hooks"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

/*
 * The process's own health, as prom-client's default metrics would give it (the server does not use prom-client:
 * its metrics live in Effect's registry, see Metrics.ts): memory, CPU, event-loop utilisation, file descriptors
 * and garbage collection. Read when collected, except GC, which is observed as it happens.
 */

const residentMemory = Metric.gauge("talab_process_resident_memory_bytes", {
  description: "Resident set size of the process"
})
const heapUsed = Metric.gauge("talab_process_heap_used_bytes", { description: "V8 heap in use" })
const heapTotal = Metric.gauge("talab_process_heap_total_bytes", { description: "V8 heap allocated" })
const cpuSeconds = Metric.counter("talab_process_cpu_seconds_total", {
  description: "CPU time the process used, by mode (user, system)",
  incremental: true
})
const eventLoopUtilization = Metric.gauge("talab_event_loop_utilization", {
  description: "Share of the time since the previous collection the event loop was busy (0 to 1)"
})
const openFds = Metric.gauge("talab_process_open_fds", { description: "File descriptors the process holds open" })
const maxFds = Metric.gauge("talab_process_max_fds", { description: "The process's limit of open file descriptors" })
const gcDuration = Metric.histogram(
  "talab_gc_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]),
  "Garbage collection pauses, by kind (minor, major, incremental, weakcb)"
)

const modeLabels = {
  user: [MetricLabel.make("mode", "user")],
  system: [MetricLabel.make("mode", "system")]
}
const none: ReadonlyArray<MetricLabel.MetricLabel> = []

const gcKinds = new Map<number, ReadonlyArray<MetricLabel.MetricLabel>>([
  [constants.NODE_PERFORMANCE_GC_MINOR, [MetricLabel.make("kind", "minor")]],
  [constants.NODE_PERFORMANCE_GC_MAJOR, [MetricLabel.make("kind", "major")]],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, [MetricLabel.make("kind", "incremental")]],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, [MetricLabel.make("kind", "weakcb")]]
])

/** Records each garbage collection until the returned function is called. */
export const observeGarbageCollection = (): (() => void) => {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } | null }).detail?.kind
      gcDuration.unsafeUpdate(entry.duration / 1000, gcKinds.get(kind ?? -1) ?? none)
    }
  })
  observer.observe({ entryTypes: ["gc"] })
  return () => observer.disconnect()
}

/** Open descriptors, from /proc (Linux); undefined where there is none. */
const countOpenFds = (): number | undefined => {
  try {
    return readdirSync("/proc/self/fd").length
  } catch {
    return undefined
  }
}

const readMaxFds = (): number | undefined => {
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1]
    return limit === undefined ? undefined : Number(limit)
  } catch {
    return undefined
  }
}

/** The CPU time already counted: kept per process, like the counter, so the counter is the process's total. */
let cpuCounted: NodeJS.CpuUsage = { user: 0, system: 0 }

/** A collector of the process gauges: each call records them, event-loop utilisation since the previous call. */
export const processCollector = () => {
  let loop: EventLoopUtilization = performance.eventLoopUtilization()
  const fdLimit = readMaxFds()
  return () => {
    const memory = process.memoryUsage()
    residentMemory.unsafeUpdate(memory.rss, none)
    heapUsed.unsafeUpdate(memory.heapUsed, none)
    heapTotal.unsafeUpdate(memory.heapTotal, none)
    const used = process.cpuUsage()
    const spent = { user: used.user - cpuCounted.user, system: used.system - cpuCounted.system }
    cpuCounted = used
    cpuSeconds.unsafeUpdate(spent.user / 1e6, modeLabels.user)
    cpuSeconds.unsafeUpdate(spent.system / 1e6, modeLabels.system)
    const now = performance.eventLoopUtilization()
    eventLoopUtilization.unsafeUpdate(performance.eventLoopUtilization(now, loop).utilization, none)
    loop = now
    const fds = countOpenFds()
    if (fds !== undefined) openFds.unsafeUpdate(fds, none)
    if (fdLimit !== undefined) maxFds.unsafeUpdate(fdLimit, none)
  }
}
