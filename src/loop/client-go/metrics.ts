// Prometheus metrics in the text exposition format (0.0.4), without a client library: counters, gauges
// and histograms with labels, plus collectors computed at scrape time (the controller's
// pv_collector_* gauges are, like the seed's pvAndPVCCountCollector, counted from its cache on every
// scrape rather than kept up to date on every event).

export type Labels = Record<string, string>

type Sample = {labels: Labels; value: number; suffix?: string}

interface Family {
  name: string
  help: string
  type: 'counter' | 'gauge' | 'histogram'
  samples(): Sample[]
}

/** The same text for the same labels in any order: names sorted, each value as a JSON string. */
function labelKey(labels: Labels): string {
  const names = Object.keys(labels)
  if (names.length > 1) names.sort()
  let key = ''
  for (const name of names) key += `${name}=${JSON.stringify(labels[name])},`
  return key
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  return String(v)
}

/** One series of a counter, its labels keyed once: what a caller that counts every sync holds. */
export interface CounterSeries {
  inc(by?: number): void
}

/** One series of a histogram, its labels keyed once. */
export interface HistogramSeries {
  observe(value: number): void
}

export class Counter {
  private readonly values = new Map<string, Sample>()

  inc(labels: Labels = {}, by = 1): void {
    this.sampleOf(labelKey(labels), labels).value += by
  }

  /**
   * The series of these labels (client-go's WithLabelValues): each inc skips keying the labels again. As
   * with inc, the series is exposed from its first inc on, not from the binding.
   */
  series(labels: Labels = {}): CounterSeries {
    const key = labelKey(labels)
    let sample: Sample | undefined
    return {inc: (by = 1) => void ((sample ??= this.sampleOf(key, labels)).value += by)}
  }

  private sampleOf(key: string, labels: Labels): Sample {
    let s = this.values.get(key)
    if (s === undefined) this.values.set(key, (s = {labels, value: 0}))
    return s
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0
  }

  samples(): Sample[] {
    return [...this.values.values()]
  }
}

export class Gauge {
  private readonly values = new Map<string, Sample>()

  set(value: number, labels: Labels = {}): void {
    this.values.set(labelKey(labels), {labels, value})
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0
  }

  samples(): Sample[] {
    return [...this.values.values()]
  }
}

/** client-go's workqueue duration buckets (1e-8 .. 10 s) are too fine for us; these are prometheus' defaults. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** volume_operation_total_seconds' buckets (pkg/volume/util/metrics.go). */
export const OPERATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600]

type HistogramSample = {labels: Labels; counts: number[]; sum: number; count: number}

export class Histogram {
  private readonly byLabels = new Map<string, HistogramSample>()

  constructor(private readonly buckets: readonly number[] = DEFAULT_BUCKETS) {}

  observe(value: number, labels: Labels = {}): void {
    this.record(this.sampleOf(labelKey(labels), labels), value)
  }

  /** The series of these labels, as Counter.series: exposed from its first observation on. */
  series(labels: Labels = {}): HistogramSeries {
    const key = labelKey(labels)
    let s: HistogramSample | undefined
    return {observe: (value) => this.record((s ??= this.sampleOf(key, labels)), value)}
  }

  private sampleOf(key: string, labels: Labels): HistogramSample {
    let s = this.byLabels.get(key)
    if (s === undefined) {
      s = {labels, counts: this.buckets.map(() => 0), sum: 0, count: 0}
      this.byLabels.set(key, s)
    }
    return s
  }

  private record(s: HistogramSample, value: number): void {
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++
    s.sum += value
    s.count++
  }

  count(labels: Labels = {}): number {
    return this.byLabels.get(labelKey(labels))?.count ?? 0
  }

  samples(): Sample[] {
    const out: Sample[] = []
    for (const s of this.byLabels.values()) {
      this.buckets.forEach((le, i) =>
        out.push({labels: {...s.labels, le: String(le)}, value: s.counts[i], suffix: '_bucket'}),
      )
      out.push({labels: {...s.labels, le: '+Inf'}, value: s.count, suffix: '_bucket'})
      out.push({labels: s.labels, value: s.sum, suffix: '_sum'})
      out.push({labels: s.labels, value: s.count, suffix: '_count'})
    }
    return out
  }
}

export class Registry {
  private readonly families: Family[] = []

  counter(name: string, help: string): Counter {
    const c = new Counter()
    this.families.push({name, help, type: 'counter', samples: () => c.samples()})
    return c
  }

  gauge(name: string, help: string): Gauge {
    const g = new Gauge()
    this.families.push({name, help, type: 'gauge', samples: () => g.samples()})
    return g
  }

  histogram(name: string, help: string, buckets?: readonly number[]): Histogram {
    const h = new Histogram(buckets)
    this.families.push({name, help, type: 'histogram', samples: () => h.samples()})
    return h
  }

  /** A gauge family computed at scrape time. */
  collect(name: string, help: string, samples: () => Array<{labels: Labels; value: number}>): void {
    this.families.push({name, help, type: 'gauge', samples})
  }

  /** The text exposition format. */
  render(): string {
    const lines: string[] = []
    for (const f of this.families) {
      lines.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      lines.push(`# TYPE ${f.name} ${f.type}`)
      for (const s of f.samples()) {
        const labels = Object.entries(s.labels)
        const text = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`
        lines.push(`${f.name}${s.suffix ?? ''}${text} ${formatValue(s.value)}`)
      }
    }
    return `${lines.join('\n')}\n`
  }
}
