// A Prometheus histogram with one label, for series observed many times per request (a plugin's run time,
// ~25 observations a verify). prom-client's Histogram validates and hashes the labels object on every
// observe (docs/decisions/0045); here a label value maps to a Float64Array of bucket counts once,
// and an observation is a few array writes. The registry reads it through get(), as it reads its own.
import type { Registry } from 'prom-client';

interface Series {
  /** Per bucket (not cumulative), then +Inf, then the sum. */
  counts: Float64Array;
}

export class LabelHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  observe(value: string, seconds: number): void {
    let series = this.series.get(value);
    if (!series) {
      series = { counts: new Float64Array(this.buckets.length + 2) };
      this.series.set(value, series);
    }
    const { counts } = series;
    let i = 0;
    while (i < this.buckets.length && seconds > (this.buckets[i] as number)) i++;
    counts[i] = (counts[i] as number) + 1;
    counts[this.buckets.length + 1] = (counts[this.buckets.length + 1] as number) + seconds;
  }

  reset(): void {
    this.series.clear();
  }

  /** What prom-client's registry formats: cumulative buckets, +Inf, sum and count per label value. */
  async get() {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const [value, { counts }] of this.series) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, [this.label]: value }, value: cumulative });
      });
      cumulative += counts[this.buckets.length] as number;
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', [this.label]: value }, value: cumulative });
      values.push({ metricName: `${this.name}_sum`, labels: { [this.label]: value }, value: counts[this.buckets.length + 1] as number });
      values.push({ metricName: `${this.name}_count`, labels: { [this.label]: value }, value: cumulative });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
