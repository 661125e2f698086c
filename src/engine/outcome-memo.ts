// What the engine answered, remembered by the values of the facts it read. A run's outcome is a function of
// those values alone (conditions compare facts with constants), and most traffic repeats a few value
// patterns, so a run whose values were seen before takes the remembered outcome instead of running the
// engine again: the engine is still the one evaluator, this only keeps its answers.
//
// Two levels: the facts every run reads (PolicyRunner's certain reads), then the others the remembered run
// read. A request is looked up by reading the first, then the others (read without being counted as the
// rules' reads: their plugins run, but only the facts of the outcome taken count). An outcome is kept under
// the second key only when every fact it read is among those two levels: equal values there make the
// engine read the same facts, and answer the same.
import type { FiredRule } from './run.js';

/** Outcomes remembered per rule set before the memo is dropped and begun again: a bound on memory. */
export const MEMO_MAX_OUTCOMES = 4_096;

export interface Remembered {
  fired: readonly FiredRule[];
  /** The facts the rules read, in the order of their conditions (see rulesRead in run.ts). */
  rulesRead: readonly string[];
  /** The same, each once. */
  reads: readonly string[];
}

interface Node {
  /** The facts read after the certain ones by the first run remembered here. */
  extra: readonly string[];
  outcomes: Map<string, Remembered>;
}

export interface Recall {
  /** The remembered outcome of a run with these values. */
  known?: Remembered;
  /** Keeps the outcome of the run these values get from the engine, when it can be. */
  remember?(outcome: Remembered): Promise<void>;
}

type Peek = (names: readonly string[]) => Promise<unknown[]>;

export class OutcomeMemo {
  private readonly nodes = new Map<string, Node>();
  private readonly certain: ReadonlySet<string>;
  private outcomes = 0;

  constructor(certain: readonly string[]) {
    this.certain = new Set(certain);
  }

  /**
   * What is known for a run whose certain reads gave `values`; `peek` reads further facts without counting
   * them. Answered at once (no promise, no wait) when the remembered run read no other fact.
   */
  recall(values: readonly unknown[], peek: Peek): Recall | Promise<Recall> {
    const first = keyOf(values);
    if (first === undefined) return {};
    const node = this.nodes.get(first);
    if (!node) return { remember: (outcome) => this.begin(first, outcome, peek) };
    if (node.extra.length === 0) return this.known(node, '');
    return peek(node.extra).then((extra) => {
      const second = keyOf(extra);
      return second === undefined ? {} : this.known(node, second);
    });
  }

  private known(node: Node, second: string): Recall {
    const known = node.outcomes.get(second);
    if (known) return { known };
    return {
      remember: async (outcome) => {
        const within = new Set(node.extra);
        if (outcome.reads.every((fact) => this.certain.has(fact) || within.has(fact))) this.keep(node, second, outcome);
      },
    };
  }

  private async begin(first: string, outcome: Remembered, peek: Peek): Promise<void> {
    const extra = outcome.reads.filter((fact) => !this.certain.has(fact));
    const second = keyOf(await peek(extra));
    if (second === undefined || this.nodes.has(first)) return;
    const node: Node = { extra, outcomes: new Map() };
    this.nodes.set(first, node);
    this.keep(node, second, outcome);
  }

  private keep(node: Node, key: string, outcome: Remembered): void {
    if (this.outcomes >= MEMO_MAX_OUTCOMES) {
      this.nodes.clear();
      this.outcomes = 0;
      return;
    }
    node.outcomes.set(key, outcome);
    this.outcomes += 1;
  }
}

/** One string for a list of scalar values, each told from the others by its type; undefined when one is not a scalar. */
function keyOf(values: readonly unknown[]): string | undefined {
  let key = '';
  for (const value of values) {
    if (value === null) key += 'n|';
    else if (typeof value === 'boolean') key += value ? 't|' : 'f|';
    else if (typeof value === 'number') key += `#${value}|`;
    else if (typeof value === 'string') key += `s${value.length}:${value}|`;
    else return undefined;
  }
  return key;
}
