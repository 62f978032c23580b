// Counters, gauges and histograms in Prometheus' text exposition format
// (version 0.0.4), written by hand: prom-client hashes the label set on every
// observation, which bench/metrics-cost.ts measured at ~960 ns a request,
// 5.8% of an in-process page view (the rule was 2%). Here a series is found
// once and kept, so counting a request is a bucket scan and two additions.

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string>;

interface Family {
  render(out: string[]): void;
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function labelText(labels: Labels, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function number(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export class Registry {
  private readonly families: Family[] = [];

  add<F extends Family>(family: F): F {
    this.families.push(family);
    return family;
  }

  render(): string {
    const out: string[] = [];
    for (const family of this.families) family.render(out);
    return out.join('\n') + '\n';
  }
}

/** Series keyed by their label values in the family's label order. */
abstract class Labelled<S> implements Family {
  private readonly entries = new Map<string, { labels: Labels; state: S }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    readonly labelNames: readonly string[],
  ) {}

  protected abstract fresh(): S;

  /**
   * Makes each series at zero, so it is scraped before its first count: a
   * series that appears at its first increment hides that increment from rate().
   */
  declare(...valueSets: ReadonlyArray<readonly string[]>): this {
    for (const values of valueSets) this.stateOf(values);
    return this;
  }
  protected abstract lines(labels: Labels, state: S, out: string[]): void;

  /** The state of one series (made on first use). */
  protected stateOf(values: readonly string[]): S {
    const key = values.join('\u0000');
    let entry = this.entries.get(key);
    if (!entry) {
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ''));
      entry = { labels, state: this.fresh() };
      this.entries.set(key, entry);
    }
    return entry.state;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const { labels, state } of this.entries.values()) this.lines(labels, state, out);
  }
}

export class Counter extends Labelled<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    super(name, help, 'counter', labelNames);
  }

  protected fresh() {
    return { value: 0 };
  }

  protected lines(labels: Labels, state: { value: number }, out: string[]): void {
    out.push(`${this.name}${labelText(labels)} ${number(state.value)}`);
  }

  inc(values: readonly string[] = [], by = 1): void {
    if (by < 0 || !Number.isFinite(by)) return;
    this.stateOf(values).value += by;
  }
}

/**
 * A value read when scraped: `read` answers one value per label set. Typed a
 * counter when what it reads only grows (the process's CPU seconds).
 */
export class Gauge implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number | Array<[Labels, number]>,
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    const value = this.read();
    if (typeof value === 'number') out.push(`${this.name} ${number(value)}`);
    else for (const [labels, v] of value) out.push(`${this.name}${labelText(labels)} ${number(v)}`);
  }
}

interface HistogramState {
  /** Per-bucket counts (not cumulative), the last one for +Inf. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export interface HistogramSeries {
  observe(value: number): void;
}

export class Histogram extends Labelled<HistogramState> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    super(name, help, 'histogram', labelNames);
  }

  protected fresh(): HistogramState {
    return { counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
  }

  /** One series to observe into; keep it (finding it is the costly part). */
  series(values: readonly string[] = []): HistogramSeries {
    const state = this.stateOf(values);
    const bounds = this.buckets;
    return {
      observe(value) {
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        state.counts[i]!++;
        state.sum += value;
        state.count++;
      },
    };
  }

  observe(values: readonly string[], value: number): void {
    this.series(values).observe(value);
  }

  protected lines(labels: Labels, state: HistogramState, out: string[]): void {
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += state.counts[i]!;
      out.push(`${this.name}_bucket${labelText(labels, ['le', number(bound)])} ${cumulative}`);
    });
    out.push(`${this.name}_bucket${labelText(labels, ['le', '+Inf'])} ${state.count}`);
    out.push(`${this.name}_sum${labelText(labels)} ${number(state.sum)}`);
    out.push(`${this.name}_count${labelText(labels)} ${state.count}`);
  }
}
