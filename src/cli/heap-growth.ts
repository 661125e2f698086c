// How far the heap of an `email-trust` process may grow between two full collections (bin/email-trust.js
// sets it before the CLI's modules load, so that the first full collections, of the data lists, already
// use it). V8 lets the old generation grow to a multiple of what survived the last full collection, and on
// a machine with a few GB of memory that multiple is up to 4. Under steady traffic the service promotes
// about 2 MB a second of short-lived request objects (those still waiting on their commit when a scavenge
// comes) into the old generation, so with the default no full collection ran for minutes: the heap grew
// from about 40 MB live to 117 MB, and the resident memory after `npm run bench`'s loads moved between 210
// and 332 MB from one run to the next with the same build, depending only on when the last full
// collection happened.
//
// With the growth bounded to 1.5 times the survivors, a full collection ran every 10-15 s under load
// (2-17 ms of pause each, the marking mostly concurrent) and the heap stayed under about 90 MB (scratch
// runs: peak resident memory 193-198 MB against 211-332 MB). A live set that grows (more caches, more
// history held) is still allowed: the limit follows it, only the slack above it is bounded. Set later (in
// `serve`, say) it would change nothing until the next full collection, which under load did not come.
//
// Taken down to 1.25 times (the twenty-fourth pass in bench/README.md) when the bench's peak reached
// 250-254 MB on a faster machine, whose loads answer more requests and so store more history. After three
// rounds of ip, verify and intelligence the peak was 236 MB with 1.25 against 250 MB with 1.5, at the same
// throughput (scratch script, one run each). One round of the loads ran 14 full collections against 10,
// their pauses 5-12 ms against 4-13 ms (--trace-gc). A heap snapshot after the loads held 52 MB live
// against a used size of 74-86 MB: the rest was garbage waiting for the next full collection. The young
// generation (up to 32 MB) cannot be bounded from here: V8 reads --max-semi-space-size only when the heap
// is set up, before any of our code runs.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to (1 + this / 100) times what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 25;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's --heap-growing-percent for this process unless the operator gave one (node flags; Node 20
 * refuses V8's flags in NODE_OPTIONS, read here in case a later one takes them), which wins. V8 reads the flag at each full collection, so setting it after start-up
 * works. Returns whether it was set here.
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
 * refuses V8's flags in NODE_OPTIONS, read here in case a later one takes them). V8 watches how many of the objects made at each allocation site survive a scavenge and, past
 * about 85 %, makes that site's objects in the old generation from then on. Under a closed-loop load (32
 * connections, requests queued behind each other) the request path's objects outlive scavenges, their sites
 * are pretenured, and afterwards every request's objects, dead within milliseconds, went straight to the old
 * generation: at 1,000 verifies a second the service then ran a full collection every 1.7 s instead of every
 * 8-12 s (--trace-gc), each one a second whose p99 was 23-36 ms, and the scavenges took twice as long in all
 * (the twenty-fifth pass in bench/README.md). It happened in some runs and not others, as the sites' counts
 * fell. V8 reads the flag at each scavenge and each allocation, so setting it after start-up works. Returns
 * whether it was set here.
 */
export function keepNewObjectsYoung(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => PRETENURING_FLAG.test(arg));
  if (given) return false;
  setFlagsFromString('--no-allocation-site-pretenuring');
  return true;
}
