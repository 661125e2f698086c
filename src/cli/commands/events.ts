// `email-trust events generate`: synthetic history for load tests. Every event goes through the store's
// own write path (Events.record: the group commit that also maintains the velocity counters), so the
// rows and counters are exactly those a real verify writes.

import type { Command } from 'commander';
import ipaddr from 'ipaddr.js';
import type { NewEvent } from '../../store/events.js';
import { UsageError } from '../errors.js';
import { DEMO_PROJECT, findProject } from '../projects.js';
import { withStore } from '../with-store.js';

/** Most events one run writes: 10 million take a few minutes on SQLite. */
export const MAX_GENERATE = 10_000_000;
/** The longest spread: 30 days, the default retention (older events would be pruned at once). */
export const MAX_SPREAD_MINUTES = 43_200;
/** Events handed to the store before waiting for their commits: bounds memory, keeps commits full. */
const IN_FLIGHT = 20_000;
const DEVICE_MAX = 64;

interface GenerateOptions {
  count: string;
  ipv4?: string;
  ipv6?: string;
  device?: string;
  project: string;
  spread: string;
}

export function addEventsCommands(program: Command): void {
  const events = program.command('events').description('velocity history (events) of a project');
  events
    .command('generate')
    .description('write synthetic events through the store’s own write path (for load tests)')
    .requiredOption('--count <n>', `events to write, 1…${MAX_GENERATE}`)
    .option('--ipv4 <address>', 'IPv4 address the events come from')
    .option('--ipv6 <address>', 'IPv6 address the events come from')
    .option('--device <hash>', `device hash the events come from (at most ${DEVICE_MAX} characters)`)
    .option('--project <name-or-id>', 'the project', DEMO_PROJECT)
    .option('--spread <minutes>', `spread the events evenly over this many past minutes, 0…${MAX_SPREAD_MINUTES}`, '60')
    .action(generate);
}

function integerOption(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${text}"`);
  return value;
}

/** The options checked and read; every refusal names its option. */
export function parseGenerateOptions(opts: GenerateOptions) {
  const count = integerOption('count', opts.count, 1, MAX_GENERATE);
  const spreadMinutes = integerOption('spread', opts.spread, 0, MAX_SPREAD_MINUTES);
  if (opts.ipv4 !== undefined && !ipaddr.IPv4.isValidFourPartDecimal(opts.ipv4))
    throw new UsageError(`--ipv4 must be an IPv4 address such as 203.0.113.7, got "${opts.ipv4}"`);
  if (opts.ipv6 !== undefined && !ipaddr.IPv6.isValid(opts.ipv6))
    throw new UsageError(`--ipv6 must be an IPv6 address such as 2001:db8::1, got "${opts.ipv6}"`);
  if (opts.device !== undefined && (opts.device === '' || opts.device.length > DEVICE_MAX))
    throw new UsageError(`--device must be 1 to ${DEVICE_MAX} characters, got ${opts.device.length}`);
  return { count, spreadMinutes, ipv4: opts.ipv4 ?? null, ipv6: opts.ipv6 ?? null, device: opts.device ?? null, project: opts.project };
}

/** The i-th of `count` synthetic events, oldest first, spread evenly over [now − spread, now]. */
export function syntheticEvent(
  projectId: string,
  o: { ipv4: string | null; ipv6: string | null; device: string | null },
  i: number,
  count: number,
  from: number,
  spanMs: number,
): NewEvent {
  const email = `user${String(i).padStart(6, '0')}@example.com`;
  return {
    projectId,
    endpoint: 'verify',
    email,
    emailLower: email,
    baseEmail: email,
    domain: 'example.com',
    ipv4: o.ipv4,
    ipv6: o.ipv6,
    device: o.device,
    action: 'allow',
    createdAt: from + (count > 1 ? Math.floor((spanMs * i) / (count - 1)) : spanMs),
  };
}

async function generate(raw: GenerateOptions): Promise<void> {
  const o = parseGenerateOptions(raw);
  const progress = process.stderr.isTTY === true;
  const started = Date.now();
  await withStore(async (store) => {
    const project = await findProject(store, o.project);
    const spanMs = o.spreadMinutes * 60_000;
    const from = Date.now() - spanMs;
    for (let done = 0; done < o.count; ) {
      const end = Math.min(o.count, done + IN_FLIGHT);
      const writes: Promise<void>[] = [];
      for (let i = done; i < end; i += 1) writes.push(store.events.record(syntheticEvent(project.id, o, i, o.count, from, spanMs)));
      await Promise.all(writes);
      done = end;
      if (progress) process.stderr.write(`\rgenerated ${done.toLocaleString('en')} / ${o.count.toLocaleString('en')} events`);
    }
    if (progress) process.stderr.write('\n');
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(`generated ${o.count} events for project ${o.project} in ${seconds.toFixed(1)} s (${Math.round(o.count / Math.max(seconds, 0.001))}/s)`);
}
