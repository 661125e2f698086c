// The order in which a request's plugins are listed (RunOutcome.pluginsRan, pluginsApplied, so `steps`): the
// order of the reads, not of the clock. Each plugin comes after the plugins its own reads reach first; the
// rules' reads in the order of their conditions, then the caller's; a plugin that waited for I/O, or for a
// plugin that did, after every other, in the order they settled. What a plugin awaits, and the engine's
// scheduling of its promises, do not move it (decision 0063).
import type { FactCatalog } from './catalog.js';

/** Readers of a fact other than a plugin (whose reader number is its plugin number). */
export const RULES = -1;
export const CALLER = -2;

interface Ordered {
  settled: number;
  reads: number;
  rules: unknown;
  ran: readonly string[];
  applied: readonly string[];
}

export class RunOrder {
  /** By plugin number: whether its run waited for I/O, its id and whether it applied once settled. */
  private readonly waitedFor: boolean[];
  private readonly idOf: Array<string | undefined>;
  private readonly knownAny: boolean[];
  /** Plugin numbers in the order they settled. */
  private readonly settleOrder: number[] = [];
  /** By plugin number: the facts it read, in the order its code read them. */
  private readonly readsBy: Array<number[] | undefined>;
  /** The facts the caller read, in the order it first read them, and by fact number whether it did. */
  private readonly callerReads: number[] = [];
  private callerSeen: boolean[] | undefined;
  private ordered: Ordered | undefined;
  /** The facts the rules read, in the order of their conditions: set by the runner after the engine's run. */
  rulesRead: (() => readonly string[]) | undefined;

  /** `given`: whether RunRequest.given answered fact number `i` (its plugin is not run for it). */
  constructor(
    private readonly catalog: FactCatalog,
    private readonly given: (fact: number) => boolean,
  ) {
    const plugins = catalog.pluginIndex.size;
    this.waitedFor = new Array<boolean>(plugins).fill(false);
    this.idOf = new Array(plugins);
    this.knownAny = new Array<boolean>(plugins).fill(false);
    this.readsBy = new Array(plugins);
  }

  /** Fact number `i` read by `reader` (RULES, CALLER or a plugin number). */
  read(i: number, reader: number): void {
    if (reader === RULES) return;
    if (reader === CALLER) {
      // Only a fact's first read by the caller can reach a plugin first.
      let seen = this.callerSeen;
      if (!seen) {
        seen = new Array<boolean>(this.catalog.factNames.length).fill(false);
        this.callerSeen = seen;
      }
      if (!seen[i]) {
        seen[i] = true;
        this.callerReads.push(i);
      }
      return;
    }
    let reads = this.readsBy[reader];
    if (!reads) {
      reads = [];
      this.readsBy[reader] = reads;
    }
    reads.push(i);
  }

  /** Plugin number `p`'s run waits for I/O: the network. */
  waited(p: number): void {
    this.waitedFor[p] = true;
  }

  settled(p: number, id: string, applied: boolean): void {
    this.settleOrder.push(p);
    this.idOf[p] = id;
    this.knownAny[p] = applied;
  }

  get ran(): readonly string[] {
    return this.now().ran;
  }

  get applied(): readonly string[] {
    return this.now().applied;
  }

  /**
   * Worked out again only when a plugin has settled, the rules' reads are known, or the caller read a new
   * fact while some settled plugin was not yet reached (a new read reaches nothing listed otherwise).
   */
  private now(): Ordered {
    const known = this.ordered;
    if (
      known &&
      known.settled === this.settleOrder.length &&
      known.rules === this.rulesRead &&
      (known.reads === this.callerReads.length || known.ran.length === known.settled)
    ) {
      return known;
    }
    const [ran, applied] = this.walk();
    const ordered = { settled: this.settleOrder.length, reads: this.callerReads.length, rules: this.rulesRead, ran, applied };
    this.ordered = ordered;
    return ordered;
  }

  private walk(): [string[], string[]] {
    const { factOwnerIndex, factIndex } = this.catalog;
    const plugins = this.readsBy.length;
    const seen = new Array<boolean>(plugins).fill(false);
    const late = new Array<boolean>(plugins).fill(false);
    const settled = new Array<boolean>(plugins).fill(false);
    for (const p of this.settleOrder) settled[p] = true;
    const ran: string[] = [];
    const applied: string[] = [];
    const list = (p: number) => {
      if (!settled[p]) return;
      ran.push(this.idOf[p] as string);
      if (this.knownAny[p]) applied.push(this.idOf[p] as string);
    };
    // Returns whether the plugin behind `fact` is late: it waited for I/O, or for a plugin that did.
    const visit = (fact: number): boolean => {
      if (this.given(fact)) return false;
      const p = factOwnerIndex[fact] as number;
      if (seen[p]) return late[p] as boolean;
      seen[p] = true;
      let waits = this.waitedFor[p] as boolean;
      const reads = this.readsBy[p];
      if (reads) for (const read of reads) if (visit(read)) waits = true;
      late[p] = waits;
      if (!waits) list(p);
      return waits;
    };
    for (const name of this.rulesRead?.() ?? []) {
      const fact = factIndex.get(name);
      if (fact !== undefined) visit(fact);
    }
    for (const fact of this.callerReads) visit(fact);
    for (const p of this.settleOrder) if (late[p]) list(p);
    return [ran, applied];
  }
}
