// YAML syntax errors placed where the author has to look. The yaml library reports some where it gave up
// rather than where the mistake is: an unclosed `{`, `[` or quote at the next line (or the end of the
// file), an over-indented line at the key above it, a misaligned key at the start of its line. Each is
// moved to the opening bracket or quote, the offending line or its first character, and given the path
// of the node it is in. Only the first errors are placed (as many as are reported), each in time independent
// of how many there are. Keys used twice in a map are found here too, in one pass (not yaml's uniqueKeys).
import { CST, type Document, isMap, isNode, isScalar, isSeq, type LineCounter, visit, type YAMLError } from 'yaml';
import { pointer } from '../schemas.js';
import type { PolicyProblem } from './errors.js';
import { POLICY_LIMITS } from './limits.js';

interface Opener {
  offset: number;
  kind: 'flow-map' | 'flow-seq' | 'quote';
}

export function syntaxProblems(file: string, text: string, tokens: readonly CST.Token[], doc: Document, lineCounter: LineCounter): PolicyProblem[] {
  const openers = unclosedOpeners(tokens);
  // An over-indented line gives two errors at the key above it; the multi-line one says what happened.
  const multiline = new Set(doc.errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const errors = doc.errors.filter((e) => !(e.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(e.pos[0])));
  const problems: PolicyProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors.sort((a, b) => a.pos[0] - b.pos[0])) {
    if (problems.length >= POLICY_LIMITS.problems) break;
    const { offset, message, pathOffset } = placed(error, text, openers);
    const { line, col } = lineCounter.linePos(offset);
    // Two errors about one unclosed bracket (yaml reports both the map and the sequence around it) are one.
    const key = `${line}:${col}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // The over-indented line made a two-line key of the value above it: the path is that value's.
    const path = pathOffset === undefined ? pathAt(doc, offset) : pathAt(doc, pathOffset).slice(0, -1);
    problems.push({ file, line, column: col, path: pointer(path), message });
  }
  return problems;
}

/** Keys given twice in one map, at the second (and later) one; at most as many as are reported. */
export function duplicateKeyProblems(file: string, doc: Document, lineCounter: LineCounter): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  visit(doc, {
    Map(_key, map) {
      const keys = new Set<unknown>();
      for (const pair of map.items) {
        // As yaml's uniqueKeys compares them: scalars by value, anything else only with itself.
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (!keys.has(key)) {
          keys.add(key);
          continue;
        }
        const offset = isNode(pair.key) && pair.key.range ? pair.key.range[0] : (map.range?.[0] ?? 0);
        const { line, col } = lineCounter.linePos(offset);
        problems.push({ file, line, column: col, path: pointer(pathAt(doc, offset)), message: 'Map keys must be unique' });
        if (problems.length >= POLICY_LIMITS.problems) return visit.BREAK;
      }
      return undefined;
    },
  });
  return problems;
}

function placed(error: YAMLError, text: string, openers: Openers): { offset: number; message: string; pathOffset?: number } {
  const reported = error.pos[0];
  const first = error.message.split('\n')[0] ?? error.code;
  const unclosed = unclosedKind(error, first);
  if (unclosed) {
    const opener = openers.lastBefore(unclosed, reported);
    if (opener !== null) return { offset: opener, message: openerMessage(unclosed) };
  }
  if (error.code === 'MULTILINE_IMPLICIT_KEY') {
    const newline = text.indexOf('\n', reported);
    if (newline >= 0 && newline < error.pos[1]) {
      return {
        offset: firstNonBlank(text, newline + 1),
        pathOffset: reported,
        message: 'this line is indented deeper than the key above it, so YAML reads it as the rest of that value: indent it like its sibling keys',
      };
    }
  }
  if (error.code === 'BAD_INDENT' && /same column/.test(first)) return { offset: firstNonBlank(text, reported), message: first };
  return { offset: reported, message: first };
}

function unclosedKind(error: YAMLError, message: string): Opener['kind'] | null {
  if (/^Flow map .*end with a \}/.test(message) || /^Expected flow map to end with \}/.test(message)) return 'flow-map';
  if (/^Flow sequence .*end with a \]/.test(message) || /^Expected flow sequence to end with \]/.test(message)) return 'flow-seq';
  if (error.code === 'MISSING_CHAR' && /quote/.test(message)) return 'quote';
  return null;
}

function openerMessage(kind: Opener['kind']): string {
  if (kind === 'quote') return 'this quoted string is never closed: end it with the same quote on this line';
  const [what, close] = kind === 'flow-map' ? ['{', '}'] : ['[', ']'];
  return `this ${what} is never closed: end it with ${close} (on this line, or indent the lines it continues on)`;
}

/** Offsets of the unclosed openers of each kind, in order. */
class Openers {
  private readonly byKind = new Map<Opener['kind'], number[]>();

  constructor(openers: readonly Opener[]) {
    for (const { kind, offset } of openers) {
      const offsets = this.byKind.get(kind) ?? [];
      offsets.push(offset);
      this.byKind.set(kind, offsets);
    }
  }

  /** The last opener of this kind before `offset`, found by halving. */
  lastBefore(kind: Opener['kind'], offset: number): number | null {
    const offsets = this.byKind.get(kind) ?? [];
    let low = 0;
    let high = offsets.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((offsets[middle] as number) < offset) low = middle + 1;
      else high = middle;
    }
    return low > 0 ? (offsets[low - 1] as number) : null;
  }
}

/** The flow collections and quoted strings of the parsed text that are not closed. */
function unclosedOpeners(tokens: readonly CST.Token[]): Openers {
  const openers: Opener[] = [];
  const look = (token: CST.Token | undefined): void => {
    if (!token) return;
    if (token.type === 'flow-collection') {
      const kind = token.start.source === '{' ? 'flow-map' : 'flow-seq';
      const close = kind === 'flow-map' ? 'flow-map-end' : 'flow-seq-end';
      if (!token.end.some((t) => t.type === close)) openers.push({ offset: token.offset, kind });
    } else if (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') {
      const quote = token.type === 'double-quoted-scalar' ? '"' : "'";
      const body = token.source;
      if (body.length < 2 || !body.endsWith(quote)) openers.push({ offset: token.offset, kind: 'quote' });
    }
  };
  for (const token of tokens) {
    if (token.type !== 'document') continue;
    look(token.value);
    CST.visit(token, (item) => {
      look(item.key ?? undefined);
      look(item.value);
    });
  }
  return new Openers(openers.sort((a, b) => a.offset - b.offset));
}

function firstNonBlank(text: string, offset: number): number {
  let at = offset;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at < text.length && text[at] !== '\n' ? at : offset;
}

/** Keys and indexes down to the deepest node holding `offset`. */
function pathAt(doc: Document, offset: number): (string | number)[] {
  const path: (string | number)[] = [];
  let node: unknown = doc.contents;
  const holds = (n: unknown) => isNode(n) && n.range !== undefined && n.range !== null && n.range[0] <= offset && offset < n.range[2];
  for (;;) {
    if (isMap(node)) {
      const pair =
        node.items[
          itemAt(
            node.items,
            offset,
            (p) => holds(p.value) || holds(p.key),
            (p) => startOf(p.key) ?? startOf(p.value),
          )
        ];
      if (!pair) break;
      path.push(keyName(pair.key));
      if (!holds(pair.value)) break;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = itemAt(node.items, offset, holds, startOf);
      if (index < 0) break;
      path.push(index);
      node = node.items[index];
    } else break;
  }
  return path;
}

/**
 * The index of the item holding `offset`, or -1: items are in the order of the text, so the last one starting
 * at or before it is found by halving (a map of 5,000 keys, a problem at each); when that one does not hold it,
 * only the items without a position are tried (listed once per collection: a scan of every item for each
 * problem made a 25,000-item text of errors cost seconds).
 */
function itemAt<T>(items: readonly T[], offset: number, holding: (item: T) => boolean, start: (item: T) => number | undefined): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const at = start(items[middle] as T);
    if (at !== undefined && at > offset) high = middle;
    else low = middle + 1;
  }
  if (low > 0 && holding(items[low - 1] as T)) return low - 1;
  for (const index of unpositioned(items, start)) if (holding(items[index] as T)) return index;
  return -1;
}

const unpositionedItems = new WeakMap<readonly unknown[], number[]>();

function unpositioned<T>(items: readonly T[], start: (item: T) => number | undefined): number[] {
  let indexes = unpositionedItems.get(items);
  if (!indexes) {
    indexes = [];
    for (const [index, item] of items.entries()) if (start(item) === undefined) indexes.push(index);
    unpositionedItems.set(items, indexes);
  }
  return indexes;
}

/**
 * A map key as a path names it: a scalar's value; a map or list used as a key is not written out (yaml's
 * writer doubles such a key's text at each level of keys inside it: 27 levels made a 268 MB string).
 */
export function keyName(key: unknown): string {
  return isScalar(key) ? String(key.value) : '(a map or list as key)';
}

function startOf(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}
