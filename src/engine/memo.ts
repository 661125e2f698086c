// The runs of `pure` plugins (Plugin.pure), remembered by what they read: most traffic repeats a few
// thousand domains, and a plugin whose facts follow from its reads alone need not run again for reads
// it has seen.
//
// A run is a sequence of reads, each a group of facts (ctx.withFacts) or a project list (ctx.projectList);
// which read comes next depends only on the values read so far, since the plugin is pure. So the runs of
// one plugin under one policy's options form a tree: a node is the read made at that point, its branches
// the values that read gave, a leaf the facts the run answered. A later request walks the tree, making
// each read itself (the same reads, in the same order, as the run would: so the plugins they start and the
// facts they mark as read are the run's), and takes the leaf's facts when every value has been seen.
// Anything else (a value not seen, a read that must wait, a value that is not a scalar) is a miss, and
// the plugin runs as it would without this module, its reads recorded on the way.
import type { FactValues } from './plugin.js';

/** Runs remembered per plugin and options before that tree is dropped and begun again: a bound on memory. */
export const MEMO_MAX_RUNS = 4_096;

/** One read of a run: a group of facts (the very array the plugin passed), or a project list by name. */
export type MemoRead = { facts: readonly string[] } | { list: string };

/** A branch of a read: the values of a group of facts as one key, or the project list's set itself. */
export type MemoBranch = string | ReadonlySet<string>;

interface MemoNode {
  /** The read the run makes at this point; undefined at a leaf. */
  read?: MemoRead;
  /** Its first branch, held without a map: most nodes below the first reads have one. */
  branch?: MemoBranch;
  next?: MemoNode;
  /** Its other branches. */
  branches?: Map<MemoBranch, MemoNode>;
  /** At a leaf: the run's facts (frozen: every later request shares them). */
  facts?: Readonly<FactValues>;
}

/** The node a read's value leads to, if a run has taken that branch. */
export function branchOf(node: MemoNode, branch: MemoBranch): MemoNode | undefined {
  return node.branch === branch ? node.next : node.branches?.get(branch);
}

/** The remembered runs of one plugin under one policy's options. */
export class MemoTree {
  private root: MemoNode = {};
  private runs = 0;
  /**
   * Each distinct answer once: most domains get the same facts from a classification (not listed, no
   * subdomain), so thousands of leaves share a few objects.
   */
  private answers = new Map<string, Readonly<FactValues>>();

  /** The root, to walk from (see RequestRun.start). */
  get start(): MemoNode {
    return this.root;
  }

  /** Keeps a run's reads and facts; a run whose reads disagree with the tree's (an impure plugin) is not kept. */
  remember(reads: readonly MemoRead[], branches: readonly MemoBranch[], facts: FactValues): void {
    if (this.runs >= MEMO_MAX_RUNS) {
      this.root = {};
      this.runs = 0;
      this.answers = new Map();
    }
    let node = this.root;
    for (let k = 0; k < reads.length; k++) {
      const read = reads[k] as MemoRead;
      if (node.facts) return;
      if (!node.read) node.read = read;
      else if (!sameRead(node.read, read)) return;
      const branch = branches[k] as MemoBranch;
      let next = branchOf(node, branch);
      if (!next) {
        next = {};
        if (!node.next) {
          node.branch = branch;
          node.next = next;
        } else {
          node.branches ??= new Map();
          node.branches.set(branch, next);
        }
      }
      node = next;
    }
    if (node.read || node.facts) return;
    node.facts = this.shared(facts);
    this.runs += 1;
  }

  /** The answer held for facts equal to these (scalar values only), or these, frozen. */
  private shared(facts: FactValues): Readonly<FactValues> {
    const names = Object.keys(facts);
    const values = valuesKey(names.map((name) => facts[name]));
    if (values === undefined) return deepFreeze(facts);
    const key = `${names.join(',')}=${values}`;
    let held = this.answers.get(key);
    if (!held) {
      held = deepFreeze(facts);
      this.answers.set(key, held);
    }
    return held;
  }
}

export type { MemoNode };

/** The key of a group's values, or undefined when one is not a scalar (an array or object fact is not memoised by). */
export function valuesKey(values: readonly unknown[]): string | undefined {
  let key = '';
  for (let k = 0; k < values.length; k++) {
    const value = values[k];
    switch (typeof value) {
      case 'string':
        // The separator cannot be confused with a value's own characters: each value says its length.
        key += `s${value.length}:${value}`;
        break;
      case 'boolean':
        key += value ? 't' : 'f';
        break;
      case 'number':
        key += `d${value};`;
        break;
      default:
        if (value !== null && value !== undefined) return undefined;
        key += 'n';
    }
  }
  return key;
}

function sameRead(a: MemoRead, b: MemoRead): boolean {
  if ('facts' in a) return 'facts' in b && (a.facts === b.facts || (a.facts.length === b.facts.length && a.facts.every((name, i) => name === b.facts[i])));
  return 'list' in b && a.list === b.list;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
