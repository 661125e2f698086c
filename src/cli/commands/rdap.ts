// `email-trust rdap refresh FILE` installs IANA's RDAP bootstrap file (dns.json, RFC 9224) after
// checking it; `email-trust rdap status` says which file the service reads. The service reads
// RDAP_BOOTSTRAP_FILE when it is set, else data/rdap-dns.json when installed, else the shipped copy.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  BootstrapFileError,
  type BootstrapSummary,
  checkBootstrap,
  DEFAULT_BOOTSTRAP_FILE,
  defaultBootstrapFile,
  installedBootstrapFile,
} from '../../network/rdap-bootstrap.js';
import { UsageError } from '../errors.js';

/** IANA's file is about 50 KB; anything far larger is not it. */
const MAX_BYTES = 4 * 1024 * 1024;

type Origin = 'RDAP_BOOTSTRAP_FILE' | 'installed' | 'shipped';

/** The file the service reads, and why, for the current folder and environment. */
function fileInUse(env: NodeJS.ProcessEnv): { file: string; origin: Origin } {
  const configured = env.RDAP_BOOTSTRAP_FILE?.trim();
  if (configured) return { file: resolve(configured), origin: 'RDAP_BOOTSTRAP_FILE' };
  const file = defaultBootstrapFile();
  return { file, origin: file === DEFAULT_BOOTSTRAP_FILE ? 'shipped' : 'installed' };
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Reads and checks a bootstrap file; every refusal names the file and the problem. */
function readBootstrap(file: string): { text: string; summary: BootstrapSummary } {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (size > MAX_BYTES) throw new UsageError(`${file} is ${size} bytes: too large for an RDAP bootstrap file (at most ${MAX_BYTES})`);
  const text = readFileSync(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  try {
    return { text, summary: checkBootstrap(parsed) };
  } catch (error) {
    if (error instanceof BootstrapFileError) throw new UsageError(`${file} is not an RDAP bootstrap file (RFC 9224): ${error.message}`);
    throw error;
  }
}

function describe(summary: BootstrapSummary): string {
  const httpOnly = summary.httpOnly.length === 0 ? '' : `; ${summary.httpOnly.length} with an http URL only (${summary.httpOnly.join(', ')})`;
  return `publication ${summary.publication}, ${summary.services} services, ${summary.entries} TLDs${httpOnly}`;
}

interface RefreshOptions {
  out?: string;
  check: boolean;
  force: boolean;
}

function refresh(source: string, opts: RefreshOptions): void {
  const { text, summary } = readBootstrap(resolve(source));
  if (opts.check) {
    console.log(`${resolve(source)}: valid; ${describe(summary)}`);
    return;
  }
  const inUse = fileInUse(process.env);
  const target = opts.out ? resolve(opts.out) : inUse.origin === 'RDAP_BOOTSTRAP_FILE' ? inUse.file : installedBootstrapFile();
  if (exists(target)) {
    let previous: BootstrapSummary | null = null;
    try {
      previous = readBootstrap(target).summary;
    } catch {
      previous = null; // a broken file in place is replaced
    }
    if (previous !== null && !opts.force && Date.parse(previous.publication) > Date.parse(summary.publication))
      throw new UsageError(
        `${target} holds a newer file (publication ${previous.publication}) than ${source} (${summary.publication}); pass --force to install the older one`,
      );
  }
  mkdirSync(dirname(target), { recursive: true });
  // The file is installed byte for byte (IANA's publication date and order intact), by rename so a
  // service starting meanwhile reads the old file or the new one, never half of one.
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
  console.log(`installed ${target}: ${describe(summary)}`);
  console.log('the service reads it when it starts: restart `email-trust serve` to use it');
}

function status(): void {
  const { file, origin } = fileInUse(process.env);
  const { summary } = readBootstrap(file);
  console.log(`${file} (${origin}): ${describe(summary)}`);
}

export function addRdapCommands(program: Command): void {
  const rdap = program.command('rdap').description("the RDAP bootstrap file (IANA's dns.json) that tells which server answers domain-age lookups for each TLD");
  rdap
    .command('refresh')
    .argument('<file>', "IANA's dns.json (https://data.iana.org/rdap/dns.json), as downloaded")
    .description(
      'check an RDAP bootstrap file (RFC 9224 shape, http(s) base URLs, no TLD twice) and install it as data/rdap-dns.json (or RDAP_BOOTSTRAP_FILE when set), which the service then reads instead of the shipped copy',
    )
    .option('--out <path>', 'install it there instead')
    .option('--check', 'only check the file and print its publication date and counts', false)
    .option('--force', 'install it even when the file in place has a later publication date', false)
    .action((file: string, opts: RefreshOptions) => refresh(file, opts));
  rdap
    .command('status')
    .description('print the bootstrap file the service reads (RDAP_BOOTSTRAP_FILE, installed, or shipped), its publication date and counts')
    .action(() => status());
}
