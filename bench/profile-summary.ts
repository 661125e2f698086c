// Self time by module of a V8 CPU profile (`node --cpu-prof`): a package under node_modules, a file of
// ours (src/…, plugins/<id>), node's own internals, or V8's pseudo-entries (garbage collector, idle,
// program). `node dist/bench/profile-summary.js FILE.cpuprofile [TOP] [SKIP_MS] [REQUESTS]` prints the top
// entries as a Markdown table (µs per request when the profile's request count is given); summariseProfile()
// gives them to bench/run.ts.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ModuleShare {
  module: string;
  percent: number;
  /** CPU µs per request spent there, when the number of requests the profile covers is given. */
  us_per_request?: number;
}

/** Which module a frame belongs to. */
export function moduleOf(url: string, functionName: string): string {
  if (functionName === 'runMicrotasks') return '(microtasks)';
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1] as string;
  const ours = /\/dist\/((?:src|plugins|bench)\/.+?)\.js$/.exec(url) ?? /\/((?:src|plugins|bench)\/.+?)\.[jt]s$/.exec(url);
  if (ours) {
    const path = ours[1] as string;
    return path.startsWith('plugins/') ? `plugins/${path.split('/')[1]}` : path;
  }
  return url;
}

/**
 * Self time per module, as a share of the busy samples (idle left out), after the first `skipMs` of the
 * profile (start-up: loading modules and lists, compiling policies).
 */
export function summariseProfile(file: string, skipMs = 0, requests = 0): ModuleShare[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map<string, number>();
  let total = 0;
  let clock = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    clock += delta;
    const node = byId.get(id);
    if (!node || clock < skipMs * 1000) return;
    const module = moduleOf(node.callFrame.url, node.callFrame.functionName);
    if (module === '(idle)') return;
    time.set(module, (time.get(module) ?? 0) + delta);
    total += delta;
  });
  return [...time.entries()]
    .map(([module, t]) => ({ module, percent: Math.round((t / total) * 1000) / 10, ...(requests > 0 ? { us_per_request: Math.round(t / requests) } : {}) }))
    .sort((a, b) => b.percent - a.percent);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top, skip, requests] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [TOP] [SKIP_MS] [REQUESTS]');
  console.log('| module | self time % | µs per request |\n|---|---|---|');
  for (const share of summariseProfile(file, Number(skip ?? 0), Number(requests ?? 0)).slice(0, Number(top ?? 20))) {
    console.log(`| ${share.module} | ${share.percent} | ${share.us_per_request ?? '—'} |`);
  }
}
