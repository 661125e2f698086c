// `email-trust verify --file list.csv|list.txt --out result.csv|result.jsonl`: a list of addresses through
// the verify pipeline in this process (no HTTP, no events, no quota), resumable: Ctrl-C writes what is done,
// and the same command again continues the result file where it stopped. With network checks on, the
// lookups' answers are cached in DATABASE_URL's domain facts table, and the run says so.
import { createReadStream, existsSync } from 'node:fs';
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { DEFAULT_DATABASE_URL, loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { createNetwork } from '../../network/index.js';
import { PolicyBook } from '../../policy/book.js';
import type { CompiledPolicy } from '../../policy/compile.js';
import { policyFolders } from '../../policy/named-policies.js';
import { type BulkItem, type BulkServices, verifyMany } from '../../service/bulk-verify.js';
import { responseFieldsOf } from '../../service/verify.js';
import { openDatabase, parseDatabaseUrl } from '../../store/database.js';
import type { Project } from '../../store/projects.js';
import { DnsFailures } from '../bulk/dns-failures.js';
import { type InputRecord, inputFormatOf, openList, type UnclosedQuote } from '../bulk/input.js';
import { BAD_INPUT, type DoneSoFar, outputColumns, outputFormatOf, ResultWriter, readDone } from '../bulk/output.js';
import { fmt, Progress } from '../bulk/progress.js';
import { InterruptedError, UsageError } from '../errors.js';
import { createLogger } from '../logger.js';
import { policyArgument } from '../policy-argument.js';
import { findProject } from '../projects.js';
import { announceDatabase } from '../with-store.js';

const DEFAULT_CONCURRENCY = 32;
/** Bad input lines printed as they are met; the rest are only counted (each has its row with input_error). */
const MAX_BAD_LINES_SHOWN = 20;

interface VerifyOptions {
  file: string;
  out: string;
  column: string;
  policy?: string;
  project?: string;
  concurrency: string;
  restart: boolean;
}

export function addVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('verify a list of addresses in this process (the same checks and policy as POST /v1/public/verify; no events stored)')
    .requiredOption('--file <list>', 'the list: a .csv file with a header, or a .txt file with one address per line')
    .requiredOption('--out <result>', 'the result file, .csv or .jsonl; an existing one is continued (see --restart)')
    .option('--column <name>', 'the CSV column holding the address', 'email')
    .option('--policy <policy>', 'a policy name from the policies folder, or a policy file (default: the project’s policy, else "default")')
    .option('--project <project>', 'a project (name or id): its policy and its own domain lists')
    .option('--concurrency <n>', 'addresses verified at once', String(DEFAULT_CONCURRENCY))
    .option('--restart', 'overwrite --out rather than continue it', false)
    .addHelpText(
      'after',
      `
Cache: with network checks on (NETWORK_CHECKS, default on), the DNS, registration and
website answers are kept in the domain_facts table of DATABASE_URL (default
${DEFAULT_DATABASE_URL}: a file under the current folder), shared with the
service and with later runs; DATABASE_URL=sqlite::memory: keeps them in memory for this
run only. NETWORK_CHECKS=off looks nothing up and opens no database (unless --project
names a project). Where a run stopped is the --out file itself (see --restart).`,
    )
    .action(verifyList);
}

async function verifyList(opts: VerifyOptions): Promise<void> {
  inputFormatOf(opts.file);
  const format = outputFormatOf(opts.out);
  if (!existsSync(opts.file)) throw new UsageError(`${opts.file}: no such file`);
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) throw new UsageError('--concurrency must be an integer from 1 to 1000');
  const config = loadConfig();
  const catalog = new FactCatalog(registry);
  // The store holds the shared cache of DNS, registration and website answers, and the project; a run
  // without either needs no database.
  const needsStore = config.network.enabled || opts.project !== undefined;
  if (needsStore) announceDatabase(config.databaseUrl);
  if (config.network.enabled) announceCache(config.databaseUrl);
  const store = needsStore ? await openDatabase(config.databaseUrl) : null;
  const log = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const network = store && config.network.enabled ? createNetwork(config.network, store.domainFacts, log) : null;
  try {
    if (store) await store.migrate();
    const project = store && opts.project ? await findProject(store, opts.project) : null;
    const policy = resolvePolicy(opts.policy, project, config.policiesDir, catalog);
    // The resolvers checked before the first row (a failing check makes DNS facts unknown, never "no MX"), then every few minutes.
    await network?.selfCheck?.check();
    network?.selfCheck?.start(config.network.dnsCheckIntervalSeconds * 1000);
    const dnsFailures = new DnsFailures();
    const services: BulkServices = {
      projectId: project?.id ?? 'bulk',
      now: Date.now,
      ...(network ? { network: (now: number) => dnsFailures.watch(network.forRequest({ persist: true, now })) } : {}),
      ...(store && project ? { lists: store.projectLists.reader(project) } : {}),
      onPluginError: (plugin, error) => log.error({ err: error, plugin }, 'plugin failed; its facts are unknown'),
    };
    await run(opts, format, policy, services, concurrency, network !== null);
    const failed = dnsFailures.summary(fmt);
    if (failed !== null) {
      const why = network?.selfCheck?.failing()
        ? ' (the resolvers fail their self-check: see the warning above)'
        : ' (timeouts or failures: their DNS facts are unknown)';
      console.log(`DNS failed for ${failed}${why}`);
    }
  } finally {
    await network?.close();
    await store?.close();
  }
}

/** Where the lookups' answers go, on stderr beside the database's name: no file appears unexplained. */
function announceCache(databaseUrl: string): void {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.client === 'sqlite' && target.filename === ':memory:') {
    console.error('cache: DNS, registration and website answers are kept in memory for this run only');
  } else {
    console.error(
      'cache: DNS, registration and website answers are kept in its domain_facts table, shared with the service and with later runs (DATABASE_URL=sqlite::memory: keeps them in memory for this run only)',
    );
  }
}

function resolvePolicy(given: string | undefined, project: Project | null, policiesDir: string, catalog: FactCatalog): CompiledPolicy {
  if (given) return policyArgument(given, policiesDir, catalog, { stem: true });
  const book = PolicyBook.load(policiesDir, catalog);
  return project ? book.forProject(project) : (book.byName('default') ?? fail(`no policy "default" in ${policyFolders(policiesDir)}; name one with --policy`));
}

function fail(message: string): never {
  throw new UsageError(message);
}

async function run(
  opts: VerifyOptions,
  format: 'csv' | 'jsonl',
  policy: CompiledPolicy,
  services: BulkServices,
  concurrency: number,
  networkOn: boolean,
): Promise<void> {
  const list = await openList(opts.file, opts.column);
  const columns = outputColumns(list.header, responseFieldsOf(policy));
  const done: DoneSoFar = opts.restart ? { rows: 0, byAction: new Map(), lastLine: 0 } : readDone(opts.out, format, columns);
  const byAction = new Map(done.byAction);
  const writer = new ResultWriter(opts.out, format, columns, done.rows === 0);
  const total = await recordEstimate(opts.file);
  if (done.rows > 0) console.error(`continuing ${opts.out}: ${fmt(done.rows)} rows already done (up to line ${done.lastLine} of ${opts.file})`);

  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(130); // a second Ctrl-C: stop now
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = new Progress({ total, done: done.rows });
  let badShown = 0;
  let rows = done.rows;
  try {
    for await (const result of verifyMany(after(list.records, done, opts.file), policy, services, {
      concurrency,
      signal: interrupt.signal,
      details: format === 'jsonl',
    })) {
      await writer.write(result);
      rows += 1;
      const action = result.response?.action ?? BAD_INPUT;
      byAction.set(action, (byAction.get(action) ?? 0) + 1);
      if (result.problem && badShown++ < MAX_BAD_LINES_SHOWN) {
        progress.end();
        console.error(`${opts.file}:${result.record.line}: ${result.problem}`);
      }
      progress.tick();
    }
  } finally {
    progress.end();
    await writer.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const bad = byAction.get(BAD_INPUT) ?? 0;
  if (bad > MAX_BAD_LINES_SHOWN) console.error(`… ${fmt(bad - MAX_BAD_LINES_SHOWN)} more bad input lines: their rows in ${opts.out} carry input_error`);
  printSummary(rows, byAction, opts.out, policy, !networkOn, progress.rate());
  const quote = list.unclosedQuote();
  if (quote && quote.swallowed > 0) printUnread(opts.file, rows, bad, quote);
  if (interrupt.signal.aborted) {
    throw new InterruptedError(`interrupted: ${fmt(rows)} rows written to ${opts.out}; run the same command again to continue where it stopped`);
  }
}

/** The records after those an earlier run wrote; refuses a result file that does not continue this list. */
async function* after(records: AsyncIterable<BulkItem<InputRecord>>, done: DoneSoFar, file: string): AsyncGenerator<BulkItem<InputRecord>> {
  let seen = 0;
  for await (const item of records) {
    seen += 1;
    if (seen < done.rows) continue;
    if (seen === done.rows) {
      if (item.record.line !== done.lastLine) {
        throw new UsageError(
          `the result file's last row is line ${done.lastLine}, but record ${seen} of ${file} is on line ${item.record.line}: it was written for another list; give another --out, or --restart`,
        );
      }
      continue;
    }
    yield item;
  }
  if (seen < done.rows) throw new UsageError(`the result file holds ${done.rows} rows but ${file} has only ${seen} records: it was written for another list`);
}

/** Records in the list, estimated from its line count (for the progress bar's share and time left). */
async function recordEstimate(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1] as number;
  }
  if (last !== 10) lines += 1;
  return Math.max(0, inputFormatOf(file) === 'csv' ? lines - 1 : lines);
}

/** Every record of the list accounted for: those an unclosed quote swallowed have no row. */
function printUnread(file: string, rows: number, bad: number, { from, to, swallowed }: UnclosedQuote): void {
  console.log(
    `${file}: ${fmt(rows + swallowed)} records = ${fmt(rows - bad)} verified + ${fmt(bad)} bad input + ${fmt(swallowed)} swallowed by the quote opened on line ${from} and never closed (lines ${from}–${to}, no rows); close it, then run again with --restart`,
  );
}

function printSummary(rows: number, byAction: Map<string, number>, out: string, policy: CompiledPolicy, offline: boolean, rate: number): void {
  console.log(
    `${fmt(rows)} rows in ${out} (policy ${policy.name}, revision ${policy.revision}${offline ? ', network checks off' : ''}; ${fmt(Math.round(rate))}/s in this run)`,
  );
  const entries = [...byAction.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(...entries.map(([action]) => action.length), 6);
  for (const [action, count] of entries)
    console.log(`  ${action.padEnd(width)}  ${fmt(count).padStart(9)}  ${((100 * count) / Math.max(rows, 1)).toFixed(1).padStart(5)}%`);
}
