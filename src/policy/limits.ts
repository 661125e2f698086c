// The limits every policy is held to, however it arrives (a file, `project create|update`, a reload, the
// playground, a request's custom_policy), each written once here and listed in docs/policy-limits.md. The text's
// are checked before the YAML is parsed, by one linear scan, then the parser's tokens before they are composed
// and the document before the schema reads it, so that nothing after them meets a deep or huge input and each
// step's time grows with the text's size, never faster.
import type { CST } from 'yaml';

/** A policy text (YAML or JSON) and the document it parses to. */
export const POLICY_LIMITS = {
  /** The text, in UTF-8 bytes. */
  bytes: 256 * 1024,
  /** Maps and lists inside one another, as estimated from the text (textOverLimit). */
  depth: 64,
  /**
   * YAML nodes, as estimated from the text (textOverLimit): room for the 10,000 entries a check's list option
   * may hold, written one a line (`- a.example`: two marks each), with the rest of a policy beside it.
   */
  nodes: 50_000,
  /**
   * One YAML anchor (`&name`) and its uses (`*name`), yaml's maxAliasCount: the anchor counts once, each use once,
   * and an anchor holding aliases counts as many times more (so aliases cannot multiply).
   */
  aliases: 50,
  /** Entries of `checks`. */
  checks: 200,
  /** Free rules (`rules`). */
  rules: 200,
  /** Conditions of one free rule, `all`, `any` and `not` included. */
  conditionsPerRule: 100,
  /** Conditions of all free rules together. */
  conditions: 1_000,
  /** Rules of the `intelligence:` section (`parent_rules`). */
  parentRules: 100,
  /** Problems reported for one text (the first ones, sorted). */
  problems: 100,
} as const;

/** A request's custom_policy, whose JSON the HTTP layer has parsed already. */
export const CUSTOM_POLICY_LIMITS = {
  /** Its JSON, in bytes. */
  bytes: 16 * 1024,
  /** Objects and arrays inside one another. */
  depth: POLICY_LIMITS.depth,
  /** Its `parent_rules`. */
  parentRules: 50,
} as const;

/** A limit a text or document passes: what was exceeded, and where. */
export interface OverLimit {
  message: string;
  /** 1-based; 0 when the limit is the whole text's (bytes). */
  line: number;
  column: number;
  /** Where in the document (a parsed one's limits); empty for the text's. */
  path: (string | number)[];
}

const NEWLINE = 10;
const RETURN = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const SINGLE = 39;
const DOUBLE = 34;
const BACKSLASH = 92;
const DASH = 45;
const QUESTION = 63;
const COLON = 58;
/** `[ ] { } , : ? & * ! | > " '` and a line break: each may begin or separate a node, so each counts as one. */
const NODE_MARK = 1;
/** Characters that change a reading's state (quotes, comments, brackets, escapes) or may count as a node. */
const SPECIAL = 2;
const CHARACTER_CLASS = new Uint8Array(128);
for (const c of '[]{},:?&*!|>"\'\n') CHARACTER_CLASS[c.charCodeAt(0)] = NODE_MARK | SPECIAL;
for (const c of '#\\-\r') CHARACTER_CLASS[c.charCodeAt(0)] = SPECIAL;

/** Where a reading of the text may be: outside quotes and comments, in a comment, in a quoted string. */
const PLAIN = 0;
const COMMENT = 1;
const SINGLE_QUOTED = 2;
/** At the first `'` of `''` (a quote in a single-quoted string). */
const SINGLE_ESCAPE = 3;
const DOUBLE_QUOTED = 4;
/** After a `\` in a double-quoted string. */
const DOUBLE_ESCAPE = 5;
const STATES = 6;
const UNREACHED = -1;

/**
 * Every way the text can be read so far, as the deepest flow depth (open `[` and `{`) each state can be at: a
 * quote where a string may begin (after a blank, a line break, `[`, `{`, `,` or `:`) may open one or be a
 * character of a plain scalar (`a: 'x` or `a: x`), so both readings go on; elsewhere (it's, "==") it is a
 * character. Readings that meet in one state keep the deeper depth.
 */
class Readings {
  private depth = new Int32Array(STATES).fill(UNREACHED);
  private next = new Int32Array(STATES);

  constructor() {
    this.depth[PLAIN] = 0;
  }

  /** The deepest any reading is. */
  deepest(): number {
    let deepest = 0;
    for (let s = 0; s < STATES; s++) deepest = Math.max(deepest, this.depth[s] as number);
    return deepest;
  }

  /** Whether no reading is inside an escape, so a character without meaning changes nothing. */
  settled(): boolean {
    return this.depth[SINGLE_ESCAPE] === UNREACHED && this.depth[DOUBLE_ESCAPE] === UNREACHED;
  }

  /**
   * Moves every reading past character `c`. `afterBlank`: it follows a space, a tab, a line break or nothing;
   * `mayOpen`: a quote there may begin a string.
   */
  advance(c: number, next: number, afterBlank: boolean, mayOpen: boolean): void {
    this.next.fill(UNREACHED);
    const plain = this.depth[PLAIN] as number;
    if (plain !== UNREACHED) {
      if (c === HASH && afterBlank) this.into(COMMENT, plain);
      else if (c === 91 || c === 123) this.into(PLAIN, plain + 1);
      else if (c === 93 || c === 125) this.into(PLAIN, Math.max(0, plain - 1));
      else {
        this.into(PLAIN, plain);
        if (c === SINGLE && mayOpen) this.into(SINGLE_QUOTED, plain);
        else if (c === DOUBLE && mayOpen) this.into(DOUBLE_QUOTED, plain);
      }
    }
    this.from(COMMENT, c === NEWLINE || c === RETURN ? PLAIN : COMMENT);
    this.from(SINGLE_QUOTED, c !== SINGLE ? SINGLE_QUOTED : next === SINGLE ? SINGLE_ESCAPE : PLAIN);
    this.from(SINGLE_ESCAPE, SINGLE_QUOTED);
    this.from(DOUBLE_QUOTED, c === BACKSLASH ? DOUBLE_ESCAPE : c === DOUBLE ? PLAIN : DOUBLE_QUOTED);
    this.from(DOUBLE_ESCAPE, DOUBLE_QUOTED);
    [this.depth, this.next] = [this.next, this.depth];
  }

  private from(state: number, to: number): void {
    const depth = this.depth[state] as number;
    if (depth !== UNREACHED) this.into(to, depth);
  }

  private into(state: number, depth: number): void {
    this.next[state] = Math.max(this.next[state] as number, depth);
  }
}

/**
 * The first limit the text passes (bytes, depth, nodes), found in one pass without parsing it; null when it
 * is within them all. Depth is counted as the deepest line's indentation, its leading `-`, `?` and `:`
 * indicators and two, plus the brackets open at that point in any reading (Readings): no well-formed reading
 * is deeper. (A malformed text can nest deeper as the parser recovers, `a: b: c` on every line: tokensOverLimit
 * measures what the parser built.) Nodes are the lines, the indicators and flow punctuation: every node begins
 * after one of them.
 */
export function textOverLimit(text: string): OverLimit | null {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > POLICY_LIMITS.bytes) return { message: `larger than ${POLICY_LIMITS.bytes} bytes (${bytes})`, line: 0, column: 0, path: [] };
  const readings = new Readings();
  let line = 1;
  let lineStart = 0;
  let deepestLine = 0;
  let nodes = 1;
  const over = (at: number, message: string): OverLimit => ({ message, line, column: at - lineStart + 1, path: [] });
  const tooDeep = () => deepestLine + readings.deepest() > POLICY_LIMITS.depth;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (i === lineStart) {
      deepestLine = Math.max(deepestLine, blockDepth(text, i));
      if (tooDeep()) return over(i, `nesting deeper than ${POLICY_LIMITS.depth} levels`);
    }
    const kind = c < 128 ? (CHARACTER_CLASS[c] as number) : 0;
    // A letter, digit or space leaves every reading where it is.
    if (kind === 0 && readings.settled()) continue;
    if ((kind & NODE_MARK) !== 0 || (c === DASH && isBlankAt(text, i + 1))) nodes += 1;
    if (nodes > POLICY_LIMITS.nodes) return over(i, `more than ${POLICY_LIMITS.nodes} YAML nodes`);
    const previous = i === 0 ? NEWLINE : text.charCodeAt(i - 1);
    const afterBlank = previous === SPACE || previous === TAB || previous === NEWLINE || previous === RETURN;
    const mayOpen = afterBlank || previous === 91 || previous === 123 || previous === 44 || previous === COLON;
    readings.advance(c, text.charCodeAt(i + 1), afterBlank, mayOpen);
    if (c === NEWLINE) {
      line += 1;
      lineStart = i + 1;
    }
    if (tooDeep()) return over(i, `nesting deeper than ${POLICY_LIMITS.depth} levels`);
  }
  return null;
}

/**
 * How deep a line at `start` may be in block collections: one level per column of indentation (a list may
 * sit at its key's column, but its items' content is two further in), one per leading indicator (`- - x`,
 * `? - x`), and two for a key on the line and its value.
 */
function blockDepth(text: string, start: number): number {
  let i = start;
  while (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB) i += 1;
  let depth = i - start + 2;
  for (;;) {
    const c = text.charCodeAt(i);
    if ((c !== DASH && c !== QUESTION && c !== COLON) || !isBlankAt(text, i + 1)) return depth;
    depth += 1;
    i += 1;
    while (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB) i += 1;
  }
}

/**
 * The first collection of the parsed tokens (yaml's CST, built without recursion) nested deeper than the
 * limit, walked without recursion; null when none is. What the composer then builds, recursing, is as deep.
 */
export function tokensOverLimit(tokens: readonly CST.Token[]): { offset: number; message: string } | null {
  const stack: { token: CST.Token | undefined; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { token, depth } = next;
    if (!token) continue;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > POLICY_LIMITS.depth) return { offset: token.offset, message: `nesting deeper than ${POLICY_LIMITS.depth} levels` };
      // A pair in a flow sequence ([a: b]) is a map of its own, one level further in.
      const inSequence = token.type === 'flow-collection' && token.start.source === '[';
      for (const item of token.items) {
        const itemDepth = inSequence && 'key' in item && (item.key !== undefined || item.sep !== undefined) ? depth + 2 : depth + 1;
        if (itemDepth > POLICY_LIMITS.depth) return { offset: token.offset, message: `nesting deeper than ${POLICY_LIMITS.depth} levels` };
        stack.push({ token: item.value, depth: itemDepth });
        if ('key' in item) stack.push({ token: item.key ?? undefined, depth: itemDepth });
      }
    }
  }
  return null;
}

function isBlankAt(text: string, i: number): boolean {
  if (i >= text.length) return true;
  const c = text.charCodeAt(i);
  return c === SPACE || c === TAB || c === NEWLINE || c === RETURN;
}

/**
 * The first limit a parsed policy passes (depth, checks, rules, conditions, parent rules); null when
 * within them. Read before the schema: the document may be any shape. Its depth is measured again, since
 * aliases (`*name`) nest what their anchor holds where the text does not show it.
 */
export function documentOverLimit(document: unknown): Omit<OverLimit, 'line' | 'column'> | null {
  if (nestedDeeperThan(document, POLICY_LIMITS.depth)) return { message: `nesting deeper than ${POLICY_LIMITS.depth} levels`, path: [] };
  if (!isRecord(document)) return null;
  const count = (value: unknown) => (Array.isArray(value) ? value.length : isRecord(value) ? Object.keys(value).length : 0);
  const over = (path: (string | number)[], limit: number, what: string) => ({ message: `more than ${limit} ${what}`, path });
  if (count(document.checks) > POLICY_LIMITS.checks) return over(['checks'], POLICY_LIMITS.checks, 'checks');
  if (Array.isArray(document.rules)) {
    if (document.rules.length > POLICY_LIMITS.rules) return over(['rules'], POLICY_LIMITS.rules, 'rules');
    let all = 0;
    for (const [i, rule] of document.rules.entries()) {
      const conditions = isRecord(rule) ? conditionCount(rule.conditions, POLICY_LIMITS.conditionsPerRule) : 0;
      if (conditions > POLICY_LIMITS.conditionsPerRule) return over(['rules', i, 'conditions'], POLICY_LIMITS.conditionsPerRule, 'conditions in one rule');
      all += conditions;
      if (all > POLICY_LIMITS.conditions) return over(['rules', i], POLICY_LIMITS.conditions, 'conditions in all rules');
    }
  }
  const parents = isRecord(document.intelligence) ? document.intelligence.parent_rules : undefined;
  if (count(parents) > POLICY_LIMITS.parentRules) return over(['intelligence', 'parent_rules'], POLICY_LIMITS.parentRules, 'parent rules');
  return null;
}

/** Conditions of a condition tree (each `all`, `any`, `not` and fact test counts one), counted up to just past `most`. */
function conditionCount(condition: unknown, most: number): number {
  if (!isRecord(condition)) return 0;
  const children = Array.isArray(condition.all) ? condition.all : Array.isArray(condition.any) ? condition.any : 'not' in condition ? [condition.not] : [];
  let n = 1;
  for (const child of children) {
    if (n > most) break;
    n += conditionCount(child, most - n);
  }
  return n;
}

/**
 * Whether objects and arrays nest deeper than `limit`, walked without recursion. A node shared through an
 * alias is walked again only when met deeper than before, so each is walked at most `limit` times.
 */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const deepestMet = new Map<object, number>();
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, depth } = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    if ((deepestMet.get(node) ?? 0) >= depth) continue;
    deepestMet.set(node, depth);
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}

/** The first limit a request's custom_policy passes (depth, bytes, parent rules); null when within them. */
export function customPolicyOverLimit(value: unknown): Omit<OverLimit, 'line' | 'column'> | null {
  // Depth first, so that JSON.stringify never meets a deep (or circular) value.
  if (nestedDeeperThan(value, CUSTOM_POLICY_LIMITS.depth)) return { message: `nesting deeper than ${CUSTOM_POLICY_LIMITS.depth} levels`, path: [] };
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes > CUSTOM_POLICY_LIMITS.bytes) return { message: `larger than ${CUSTOM_POLICY_LIMITS.bytes} bytes of JSON (${bytes})`, path: [] };
  const parents = isRecord(value) ? value.parent_rules : undefined;
  if (Array.isArray(parents) && parents.length > CUSTOM_POLICY_LIMITS.parentRules) {
    return { message: `more than ${CUSTOM_POLICY_LIMITS.parentRules} parent rules`, path: ['parent_rules'] };
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
