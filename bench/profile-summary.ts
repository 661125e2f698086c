// Self time by module of a V8 CPU profile (`node --cpu-prof`): a package under node_modules, a file of
// ours (src/…, plugins/<id>), node's own internals, or V8's pseudo-entries (garbage collector, idle,
// program). `node dist/bench/profile-summary.js FILE.cpuprofile [TOP]` prints the top entries as a
// Markdown table; summariseProfile() gives them to bench/run.ts.
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
}

/** Which module a frame belongs to. */
export function moduleOf(url: string, functionName: string): string {
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

/** Self time per module, as a share of all samples (idle included unless `busyOnly`). */
export function summariseProfile(file: string, busyOnly = true): ModuleShare[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const module = moduleOf(node.callFrame.url, node.callFrame.functionName);
    if (busyOnly && module === '(idle)') return;
    const delta = profile.timeDeltas[i] ?? 0;
    time.set(module, (time.get(module) ?? 0) + delta);
    total += delta;
  });
  return [...time.entries()].map(([module, t]) => ({ module, percent: Math.round((t / total) * 1000) / 10 })).sort((a, b) => b.percent - a.percent);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [TOP]');
  console.log('| module | self time % |\n|---|---|');
  for (const share of summariseProfile(file).slice(0, Number(top ?? 20))) console.log(`| ${share.module} | ${share.percent} |`);
}
