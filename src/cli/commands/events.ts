// `email-trust events generate`: synthetic history for load tests (src/service/synthetic-events.ts),
// written through the store's own write path; `events list|show`: the stored decisions (decisions.ts).

import type { Command } from 'commander';
import ipaddr from 'ipaddr.js';
import { generateEvents } from '../../service/synthetic-events.js';
import { UsageError } from '../errors.js';
import { DEMO_PROJECT, findProject } from '../projects.js';
import { withStore } from '../with-store.js';
import { addDecisionCommands } from './decisions.js';

/** Most events one run writes: 10 million take a few minutes on SQLite. */
export const MAX_GENERATE = 10_000_000;
/** The longest spread: 30 days, the default retention (older events would be pruned at once). */
export const MAX_SPREAD_MINUTES = 43_200;
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
  const events = program.command('events').description("a project's stored decisions (events): the history behind velocity");
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
  addDecisionCommands(events);
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

async function generate(raw: GenerateOptions): Promise<void> {
  const o = parseGenerateOptions(raw);
  const progress = process.stderr.isTTY === true;
  const started = Date.now();
  await withStore(async (store) => {
    const project = await findProject(store, o.project);
    await generateEvents(store.events, { ...o, projectId: project.id, now: Date.now() }, (done) => {
      if (progress) process.stderr.write(`\rgenerated ${done.toLocaleString('en')} / ${o.count.toLocaleString('en')} events`);
    });
    if (progress) process.stderr.write('\n');
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(`generated ${o.count} events for project ${o.project} in ${seconds.toFixed(1)} s (${Math.round(o.count / Math.max(seconds, 0.001))}/s)`);
}
