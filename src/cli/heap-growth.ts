// How far the heap of an `email-trust` process may grow between two full collections (bin/email-trust.js
// sets it before the CLI's modules load, so that the first full collections, of the data lists, already
// use it). V8 lets the old generation grow to up to 4 times what survived the last full collection, and
// the service promotes short-lived request objects steadily: unbounded, no full collection ran for minutes
// and the resident memory after a load depended on when the last one had run (docs/decisions/0036). A live
// set that grows is still allowed: the limit follows it, only the slack above it is bounded. Set later (in
// `serve`, say) it would change nothing until the next full collection. The young generation cannot be
// bounded from here: V8 reads --max-semi-space-size only when the heap is set up.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to (1 + this / 100) times what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 25;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's --heap-growing-percent for this process unless the operator gave one (node flags; Node 20
 * refuses V8's flags in NODE_OPTIONS, read here in case a later one takes them), which wins. V8 reads the
 * flag at each full collection, so setting it after start-up works. Returns whether it was set here.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => FLAG.test(arg));
  if (given) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

const PRETENURING_FLAG = /^--(no[-_])?allocation[-_]site[-_]pretenuring$/;

/**
 * Turns off V8's allocation-site pretenuring for this process unless the operator chose (node flags; Node 20
 * refuses V8's flags in NODE_OPTIONS, read here in case a later one takes them). After a burst of queued
 * requests V8 pretenured the request path's allocation sites, and every request's short-lived objects then
 * went to the old generation: full collections came several times as often (docs/decisions/0037). V8 reads
 * the flag at each scavenge and each allocation, so setting it after start-up works. Returns whether it was
 * set here.
 */
export function keepNewObjectsYoung(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => PRETENURING_FLAG.test(arg));
  if (given) return false;
  setFlagsFromString('--no-allocation-site-pretenuring');
  return true;
}
