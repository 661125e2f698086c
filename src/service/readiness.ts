// Readiness: whether this instance should be given traffic. A list of named probes (the database,
// the policies, Redis when configured …), each run with a bounded wait; the instance is ready when
// every required probe passes and it is not stopping. A part the service works without (Redis: the limits
// fall back to memory) is an optional probe: its failure is reported as `degraded`, and the instance stays
// ready, so a Redis outage never takes every instance out of the load balancer. A probe says what failed in words that hold no query,
// value or credential (store/unavailable.ts's outageReason for errors).
//
//   readiness.add('database', (signal) => store.ping(signal));   // one line per part that must be reachable
//   readiness.add('redis', () => redis.ping(), { required: false });   // reported, never makes it unready
//   readiness.inform('policies', () => book.activeRevisions());   // a field the report carries as it is
import { outageReason } from '../store/unavailable.js';

/** Resolves when the part is usable; rejects (or throws) with why not. Should give up when `signal` aborts. */
export type Probe = (signal: AbortSignal) => Promise<unknown> | unknown;

/** How long one probe may take before it counts as failed. */
export const PROBE_TIMEOUT_MS = 2_000;

export interface ProbeResult {
  ok: boolean;
  /** Why it failed: "timed out after 2000 ms", an error's name and code, or the probe's own reason. */
  reason?: string;
}

export interface ReadinessReport {
  ready: boolean;
  /** Each probe by name, plus `shutdown` while the instance is stopping. */
  checks: Record<string, ProbeResult>;
  /** The names of the failing required parts, in probe order. */
  failing: string[];
  /** The names of the failing optional parts: the instance serves without them. */
  degraded: string[];
  /** What the informers say (e.g. `policies`: the active revision of each policy). */
  info: Record<string, unknown>;
}

/** An error whose message is meant for the operator (a probe's own words, never a driver's). */
export class ProbeFailure extends Error {
  override readonly name = 'ProbeFailure';
}

export class Readiness {
  private readonly probes = new Map<string, { probe: Probe; required: boolean }>();
  private readonly informers = new Map<string, () => unknown>();
  private stopping = false;

  constructor(private readonly timeoutMs = PROBE_TIMEOUT_MS) {}

  /** Adds (or replaces) a named probe; an optional one (`required: false`) only reports. */
  add(name: string, probe: Probe, options: { required?: boolean } = {}): this {
    this.probes.set(name, { probe, required: options.required !== false });
    return this;
  }

  /** Adds (or replaces) a named field of the report, read at every check. */
  inform(name: string, informer: () => unknown): this {
    this.informers.set(name, informer);
    return this;
  }

  names(): string[] {
    return [...this.probes.keys()];
  }

  /** From now on the instance reports itself not ready (SIGTERM: the load balancer should stop sending). */
  markStopping(): void {
    this.stopping = true;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Runs every probe at once, each bounded by the timeout. */
  async check(): Promise<ReadinessReport> {
    const entries = [...this.probes];
    const results = await Promise.all(entries.map(([, { probe }]) => this.run(probe)));
    const checks: Record<string, ProbeResult> = {};
    const failing: string[] = [];
    const degraded: string[] = [];
    entries.forEach(([name, { required }], i) => {
      const result = results[i] as ProbeResult;
      checks[name] = result;
      if (!result.ok) (required ? failing : degraded).push(name);
    });
    if (this.stopping) {
      checks.shutdown = { ok: false, reason: 'the instance is shutting down' };
      failing.unshift('shutdown');
    }
    const info = Object.fromEntries([...this.informers].map(([name, informer]) => [name, informer()]));
    return { ready: failing.length === 0, checks, failing, degraded, info };
  }

  private async run(probe: Probe): Promise<ProbeResult> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ ok: false, reason: `timed out after ${this.timeoutMs} ms` });
      }, this.timeoutMs);
    });
    const ran = (async (): Promise<ProbeResult> => {
      try {
        await probe(controller.signal);
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: error instanceof ProbeFailure ? error.message : `failed: ${outageReason(error)}` };
      }
    })();
    try {
      return await Promise.race([ran, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
