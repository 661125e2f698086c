// `email-trust data update`: each list's upstream fetched (a deadline and a size cap on every download),
// compiled by its plugin's parser and guard, checked against the list loaded now, and installed in DATA_DIR
// (src/data-lists.ts) only when every check holds; otherwise the last good list stays, and the result says why.
// It knows no list by name: the plugins' data declarations say what to fetch and how to read it.
import type { DataConfig } from '../config.js';
import { STALE_LOCK_MS, takeUpdateLock, writeInstalled } from '../data-lists.js';
import type { DataList } from '../engine/plugin.js';

export interface UpdateTarget {
  plugin: string;
  list: DataList;
}

export interface UpdateOptions extends Omit<DataConfig, 'reloadIntervalSeconds' | 'updateIntervalSeconds' | 'ageCheck'> {
  /** Fetch, compile and check, but write nothing. */
  dryRun: boolean;
  now?: () => number;
}

/** `installed` (or `checked`, on a dry run): the update holds; `refused`: the last good list stays; `skipped`: no upstream. */
export type UpdateOutcome = 'installed' | 'checked' | 'refused' | 'skipped';

export interface UpdateResult {
  plugin: string;
  list: string;
  outcome: UpdateOutcome;
  /** Why it was refused or skipped; null when it holds. */
  reason: string | null;
  /** The URLs fetched (the mirror's, with DATA_SOURCES_URL); empty when skipped. */
  urls: string[];
  /** Entries of the list loaded before. */
  previous: number | null;
  /** Entries of the update; null when there is none. */
  entries: number | null;
}

/** What refuses a download or an update: its message is the report's reason. */
class Refusal extends Error {}

/** The URL fetched for `url`: itself, or `<mirror>/<host><path>` (the layout `wget --mirror` writes). */
export function sourceUrl(url: string, mirror: string | null): string {
  if (mirror === null) return url;
  const { host, pathname, search } = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${host}${pathname}${search}`;
}

/** One download's text: refused on no answer within the deadline, a non-2xx status, an HTML page or more than maxBytes. */
export async function fetchBody(url: string, limits: { fetchTimeoutMs: number; maxBytes: number }): Promise<string> {
  const signal = AbortSignal.timeout(limits.fetchTimeoutMs);
  const failed = (error: unknown): Refusal =>
    error instanceof Refusal
      ? error
      : new Refusal(signal.aborted ? `${url}: no answer within ${limits.fetchTimeoutMs} ms (DATA_FETCH_TIMEOUT_MS)` : `${url}: ${problemOf(error)}`);
  try {
    const response = await request(url, signal);
    const stop = () => response.body?.cancel().catch(() => {});
    if (!response.ok) {
      await stop();
      throw new Refusal(`${url}: HTTP ${response.status}`);
    }
    const type = response.headers.get('content-type') ?? '';
    if (/^\s*text\/html\b/i.test(type)) {
      await stop();
      throw new Refusal(`${url}: an HTML page (${type}), not the list`);
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > limits.maxBytes) {
      await stop();
      throw new Refusal(`${url}: ${declared} bytes, over DATA_MAX_BYTES (${limits.maxBytes})`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body) {
      for await (const chunk of response.body) {
        size += chunk.byteLength;
        if (size > limits.maxBytes) {
          await stop();
          throw new Refusal(`${url}: over DATA_MAX_BYTES (${limits.maxBytes} bytes)`);
        }
        chunks.push(chunk);
      }
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trimStart().startsWith('<')) throw new Refusal(`${url}: an HTML or XML page, not the list`);
    return text;
  } catch (error) {
    throw failed(error);
  }
}

/**
 * Connection errors of a request sent on a connection the pool kept alive and the server has closed meanwhile
 * (a mirror's keep-alive timeout between two lists): nothing was answered, and the GET is sent again, once.
 */
const CLOSED_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

async function request(url: string, signal: AbortSignal): Promise<Response> {
  const init = { signal, headers: { accept: 'text/plain, application/json, text/csv;q=0.9, */*;q=0.1' } };
  try {
    return await fetch(url, init);
  } catch (error) {
    if (signal.aborted || !CLOSED_CONNECTION.has(causeOf(error))) throw error;
    return fetch(url, init);
  }
}

function problemOf(error: unknown): string {
  const cause = causeOf(error);
  return CLOSED_CONNECTION.has(cause) ? `the connection was closed without an answer (${cause}), also when asked again` : cause;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

/** Another update holds DATA_DIR's lock (data-lists.ts): this one fetched nothing. */
export class UpdateInProgress extends Error {}

/**
 * Updates each target in turn (one list's downloads at once, so memory holds one list); never throws for a
 * list. One update installs into a DATA_DIR at a time (its lock): with another running, throws
 * UpdateInProgress before fetching anything. A dry run installs nothing and takes no lock.
 */
export async function updateLists(targets: readonly UpdateTarget[], options: UpdateOptions): Promise<UpdateResult[]> {
  const lock = options.dryRun ? { release: () => {} } : takeUpdateLock(options.dir, (options.now ?? Date.now)());
  if ('holder' in lock) {
    const { pid, host, startedAt } = lock.holder;
    throw new UpdateInProgress(
      `another \`data update\` is installing into ${options.dir} (pid ${pid} on ${host}, since ${startedAt}); nothing was fetched. Try again when it ends (a lock older than ${STALE_LOCK_MS / 60_000} minutes is taken over)`,
    );
  }
  try {
    const results: UpdateResult[] = [];
    for (const target of targets) results.push(await updateList(target, options));
    return results;
  } finally {
    lock.release();
  }
}

async function updateList({ plugin, list }: UpdateTarget, options: UpdateOptions): Promise<UpdateResult> {
  const base = { plugin, list: list.name, previous: list.entries };
  const upstream = list.upstream;
  if (!upstream) return { ...base, outcome: 'skipped', reason: list.noUpstream ?? 'no upstream', urls: [], entries: null };
  const urls = upstream.urls.map((url) => sourceUrl(url, options.sourcesUrl));
  const refused = (reason: string, entries: number | null = null): UpdateResult => ({ ...base, outcome: 'refused', reason, urls, entries });
  let entries: string[];
  try {
    const texts = await Promise.all(urls.map((url) => fetchBody(url, options)));
    entries = upstream.compile(texts.map((text, i) => ({ url: urls[i] as string, text })));
  } catch (error) {
    return refused(error instanceof Refusal ? error.message : `does not parse: ${(error as Error).message}`);
  }
  const previous = list.entries;
  if (previous !== null && previous > 0 && entries.length < previous * (1 - options.maxShrinkPercent / 100)) {
    const share = Math.round((1 - entries.length / previous) * 100);
    return refused(
      `shrinks from ${previous} to ${entries.length} entries (-${share} %, more than DATA_MAX_SHRINK ${options.maxShrinkPercent} %)`,
      entries.length,
    );
  }
  if (!options.dryRun) {
    const fetchedAt = new Date((options.now ?? Date.now)()).toISOString();
    writeInstalled(options.dir, plugin, list.name, `${entries.join('\n')}\n`, { urls, fetchedAt, entries: entries.length });
  }
  return { ...base, outcome: options.dryRun ? 'checked' : 'installed', reason: null, urls, entries: entries.length };
}
