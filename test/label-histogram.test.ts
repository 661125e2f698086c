// The plugin-duration histogram is our own (src/label-histogram.ts, for speed): a scrape must read exactly
// what prom-client's Histogram would give for the same observations.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelHistogram } from '../src/label-histogram.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED: Array<[string, number]> = [
  ['velocity', 0.0004],
  ['velocity', 0.001], // on a bound: counted in that bucket (le is inclusive)
  ['velocity', 0.05],
  ['dns', 2.5], // past the last bound: +Inf only
  ['dns', 0.0099],
  ['structure', 0],
];

describe('LabelHistogram', () => {
  it('exposes the same series as prom-client’s Histogram for the same observations', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const reference = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['plugin'], buckets: BUCKETS, registers: [theirs] });
    const histogram = new LabelHistogram('x_seconds', 'h', 'plugin', BUCKETS, ours);
    for (const [plugin, seconds] of OBSERVED) {
      reference.observe({ plugin }, seconds);
      histogram.observe(plugin, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_seconds_bucket{le="0.001",plugin="velocity"} 2');
    expect(text).toContain('x_seconds_bucket{le="+Inf",plugin="dns"} 2');
    expect(text).toContain('x_seconds_count{plugin="structure"} 1');
  });

  it('starts empty again after reset', async () => {
    const registry = new Registry();
    const histogram = new LabelHistogram('y_seconds', 'h', 'plugin', BUCKETS, registry);
    histogram.observe('dns', 0.2);
    histogram.reset();
    expect(await registry.metrics()).not.toContain('y_seconds_count');
  });
});
