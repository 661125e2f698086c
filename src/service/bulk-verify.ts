// Verifying a list of addresses in process (`email-trust verify --file`): the verify pipeline on each
// address, a bounded number at once, the results in input order. A list is not sign-up traffic: no event
// is recorded and no history is read (velocity checks are "not checked"), and no quota is counted.
import { noHistory } from '../engine/no-history.js';
import type { NetworkAccess, ProjectListReader } from '../engine/plugin.js';
import { OFFLINE } from '../network/offline.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { resultFieldsOf, type VerifyResponse, verifyWith } from './verify.js';

/** One record of the list: the address, or why the record holds none. */
export interface BulkItem<R> {
  record: R;
  email: string | null;
  /** Why the record cannot be verified (a malformed line, no address); null when it can. */
  problem: string | null;
}

export interface BulkResult<R> {
  record: R;
  /** The verify response (as with show_results), or null when the record had a problem. */
  response: VerifyResponse | null;
  problem: string | null;
}

export interface BulkOptions {
  concurrency: number;
  signal?: AbortSignal;
  /**
   * Everything show_results shows (analyzed_data, checked_types), or only the verdict, the flags and the
   * top-level fields (errors, warnings, corrected_email, risk_score …): a list's table does not need the rest.
   */
  details: boolean;
}

export interface BulkServices {
  /** The network of one address (the lookups' cache is shared by all of them); offline when absent. */
  network?(now: number): NetworkAccess;
  lists?: ProjectListReader;
  projectId: string;
  now(): number;
  onPluginError?(pluginId: string, error: unknown): void;
}

/**
 * Verifies every item, at most `concurrency` at a time, yielding results in input order. Stops reading
 * once `signal` aborts; the addresses already started are finished and yielded.
 */
export async function* verifyMany<R>(
  items: AsyncIterable<BulkItem<R>>,
  policy: CompiledPolicy,
  services: BulkServices,
  options: BulkOptions,
): AsyncGenerator<BulkResult<R>> {
  const window: Promise<BulkResult<R>>[] = [];
  for await (const item of items) {
    if (options.signal?.aborted) break;
    window.push(verifyOne(item, policy, services, options.details));
    if (window.length >= options.concurrency) yield await (window.shift() as Promise<BulkResult<R>>);
  }
  while (window.length > 0) yield await (window.shift() as Promise<BulkResult<R>>);
}

async function verifyOne<R>(item: BulkItem<R>, policy: CompiledPolicy, services: BulkServices, details: boolean): Promise<BulkResult<R>> {
  if (item.email === null || item.problem !== null) return { record: item.record, response: null, problem: item.problem ?? 'no address' };
  const now = services.now();
  const { response, evaluation } = await verifyWith(
    policy,
    { email_address: item.email, show_results: details },
    {
      projectId: services.projectId,
      device: null,
      services: {
        velocity: noHistory,
        network: services.network ? services.network(now) : OFFLINE,
        ...(services.lists ? { lists: services.lists } : {}),
        now: services.now,
        ...(services.onPluginError ? { onPluginError: services.onPluginError } : {}),
      },
    },
  );
  if (!details) {
    response.errors = evaluation.decision.errors;
    response.warnings = evaluation.decision.warnings;
    const names = resultFieldsOf(policy);
    const values = await evaluation.facts(names);
    names.forEach((name, i) => {
      if (values[i] !== null && values[i] !== undefined) response[name] = values[i];
    });
  }
  return { record: item.record, response, problem: null };
}
