// The limits of src/policy/limits.ts, each at its number and one past it, through loadPolicy (every way a
// policy text arrives) and the policy book's custom_policy; a reload and a stored text refused as a file is;
// and whatever a text is made of, none within the limits builds a document deeper than the depth limit.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMap, isPair, isSeq, parseDocument } from 'yaml';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { packageRoot, policiesDir } from '../../src/paths.js';
import { CustomPolicyError, PolicyBook } from '../../src/policy/book.js';
import { PolicyError, PolicyLimitError } from '../../src/policy/errors.js';
import { CUSTOM_POLICY_LIMITS, POLICY_LIMITS } from '../../src/policy/limits.js';
import { loadPolicy, policyRevision } from '../../src/policy/load.js';
import type { IntelligencePolicy } from '../../src/policy/types.js';
import { fixturePolicy } from '../http/contract.js';
import { DEEP_POLICIES, DEPTH_REFUSAL } from '../support/deep-policies.js';

const catalog = new FactCatalog(registry);
const load = (text: string) => loadPolicy({ name: 'p', file: 'p.yaml', text }, catalog);

/** The sentence a limit refuses the text with, or null when no limit does (it may still have other problems). */
function limitRefusal(text: string): string | null {
  try {
    load(text);
    return null;
  } catch (error) {
    if (error instanceof PolicyLimitError) return error.describe();
    if (error instanceof PolicyError) return null;
    throw error;
  }
}

const HEAD = 'version: "1.0"\n';
const brackets = (n: number, inner = '1') => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;
const fact = '{ fact: has_numeric, operator: equal, value: true }';
/** A condition tree of exactly `n` conditions (n ≥ 2): an `all` of `all`s of at most 50, as the schema allows. */
function conditions(n: number): string {
  const leaves = Array.from({ length: n - 1 }, () => fact);
  if (leaves.length <= 50) return `{ all: [${leaves.join(', ')}] }`;
  const groups: string[] = [];
  for (let rest = n - 1; rest > 0; ) {
    const size = Math.min(50, rest - 1);
    groups.push(`{ all: [${Array.from({ length: size }, () => fact).join(', ')}] }`);
    rest -= size + 1;
  }
  return `{ all: [${groups.join(', ')}] }`;
}
const rule = (i: number, n = 2) => `  - { name: r${i}, action: warn, warning: w, conditions: ${conditions(n)} }\n`;
const parentRule = '    - { field: domain_free, operator: "==", target: { bool: true }, action: block }\n';
/** A text of exactly `bytes` UTF-8 bytes: the head and a comment. */
const ofBytes = (bytes: number) => `${HEAD}# ${'x'.repeat(bytes - HEAD.length - 3)}\n`;
/** A text the scan counts exactly `nodes` nodes in: the head counts 5, each further line one. */
const ofNodes = (nodes: number) => HEAD + '#\n'.repeat(nodes - 5);
/** Lines each indented one column further than the one above, the last `columns` in. */
const indented = (columns: number) => `${HEAD}x:\n${Array.from({ length: columns }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} 1\n`;
/** An anchor 40 deep used inside `outer` more brackets: the text is shallow, the document is not. */
const throughAlias = (outer: number) => `${HEAD}a0: &a0 ${brackets(40)}\na1: ${brackets(outer, '*a0')}\n`;

describe('each limit, at its number and one past it', () => {
  it.each([
    ['bytes', ofBytes(POLICY_LIMITS.bytes), ofBytes(POLICY_LIMITS.bytes + 1), `policy: larger than ${POLICY_LIMITS.bytes} bytes (${POLICY_LIMITS.bytes + 1})`],
    ['depth in brackets', `${HEAD}description: ${brackets(62)}\n`, `${HEAD}description: ${brackets(63)}\n`, 'policy: nesting deeper than 64 levels (line 2)'],
    ['depth in indentation', indented(62), indented(63), 'policy: nesting deeper than 64 levels (line 65)'],
    // The parser nests each line of `a: b: c` in the one before: measured on what it built, before it is composed.
    ['depth of a malformed text', HEAD + 'a: b: c\n'.repeat(63), HEAD + 'a: b: c\n'.repeat(64), 'policy: nesting deeper than 64 levels (line 65)'],
    ['depth through an alias', throughAlias(23), throughAlias(24), 'policy: nesting deeper than 64 levels (line 1)'],
    [
      'nodes',
      ofNodes(POLICY_LIMITS.nodes),
      ofNodes(POLICY_LIMITS.nodes + 1),
      `policy: more than ${POLICY_LIMITS.nodes} YAML nodes (line ${POLICY_LIMITS.nodes - 3})`,
    ],
    [
      'aliases (the anchor and its uses)',
      `${HEAD}a: &a [1]\nb: [${'*a, '.repeat(POLICY_LIMITS.aliases - 1)}]\n`,
      `${HEAD}a: &a [1]\nb: [${'*a, '.repeat(POLICY_LIMITS.aliases)}]\n`,
      `policy: an anchor (&name) with its uses (*name) counted more than ${POLICY_LIMITS.aliases} times (line 1)`,
    ],
    [
      'checks',
      `${HEAD}checks:\n${Array.from({ length: POLICY_LIMITS.checks }, (_, i) => `  c${i}: {}\n`).join('')}`,
      `${HEAD}checks:\n${Array.from({ length: POLICY_LIMITS.checks + 1 }, (_, i) => `  c${i}: {}\n`).join('')}`,
      `policy: more than ${POLICY_LIMITS.checks} checks (at /checks, line 3)`,
    ],
    [
      'rules',
      `${HEAD}rules:\n${Array.from({ length: POLICY_LIMITS.rules }, (_, i) => rule(i)).join('')}`,
      `${HEAD}rules:\n${Array.from({ length: POLICY_LIMITS.rules + 1 }, (_, i) => rule(i)).join('')}`,
      `policy: more than ${POLICY_LIMITS.rules} rules (at /rules, line 3)`,
    ],
    [
      'conditions in one rule',
      `${HEAD}rules:\n${rule(0, POLICY_LIMITS.conditionsPerRule)}`,
      `${HEAD}rules:\n${rule(0, POLICY_LIMITS.conditionsPerRule + 1)}`,
      `policy: more than ${POLICY_LIMITS.conditionsPerRule} conditions in one rule (at /rules/0/conditions, line 3)`,
    ],
    [
      'conditions in all rules',
      `${HEAD}rules:\n${Array.from({ length: 10 }, (_, i) => rule(i, 100)).join('')}`,
      `${HEAD}rules:\n${Array.from({ length: 10 }, (_, i) => rule(i, 100)).join('')}${rule(10)}`,
      `policy: more than ${POLICY_LIMITS.conditions} conditions in all rules (at /rules/10, line 13)`,
    ],
    [
      'parent rules',
      `${HEAD}intelligence:\n  parent_rules:\n${parentRule.repeat(POLICY_LIMITS.parentRules)}`,
      `${HEAD}intelligence:\n  parent_rules:\n${parentRule.repeat(POLICY_LIMITS.parentRules + 1)}`,
      `policy: more than ${POLICY_LIMITS.parentRules} parent rules (at /intelligence/parent_rules, line 4)`,
    ],
  ])('%s', (_limit, atLimit, pastLimit, refusal) => {
    expect(limitRefusal(atLimit)).toBeNull();
    expect(limitRefusal(pastLimit)).toBe(refusal);
  });

  it('compiles a policy at the rule and condition limits', () => {
    const policy = load(`${HEAD}rules:\n${Array.from({ length: 10 }, (_, i) => rule(i, 100)).join('')}`);
    expect(policy.ruleCount).toBe(10);
  });

  it(`reports the first ${POLICY_LIMITS.problems} problems, sorted, however many there are`, () => {
    const unknownChecks = (n: number) => `${HEAD}checks:\n${Array.from({ length: n }, (_, i) => `  c${i}: {}\n`).join('')}`;
    const problems = (text: string) => {
      try {
        load(text);
      } catch (error) {
        if (error instanceof PolicyError) return error.problems;
      }
      throw new Error('expected problems');
    };
    expect(problems(unknownChecks(POLICY_LIMITS.problems))).toHaveLength(POLICY_LIMITS.problems);
    const many = problems(unknownChecks(POLICY_LIMITS.problems + 50));
    expect(many).toHaveLength(POLICY_LIMITS.problems);
    expect(many.map((p) => p.line)).toEqual(Array.from({ length: POLICY_LIMITS.problems }, (_, i) => i + 3));
  });
});

describe("a request's custom_policy, through the policy book", () => {
  let book: PolicyBook;
  beforeAll(() => {
    book = PolicyBook.load(policiesDir, catalog);
  });
  const refusal = (custom: unknown) => {
    try {
      book.customVerdict(custom as IntelligencePolicy);
      return null;
    } catch (error) {
      if (error instanceof CustomPolicyError) return error.message;
      throw error;
    }
  };
  /** `{parent_rules: [], extra: …}` nested `depth` deep in all. */
  const nested = (depth: number) => {
    let value: unknown = {};
    for (let i = 2; i < depth; i++) value = { a: value };
    return { parent_rules: [], extra: value };
  };
  /** A custom_policy of exactly `bytes` bytes of JSON. */
  const ofJsonBytes = (bytes: number) => ({ parent_rules: [], pad: 'x'.repeat(bytes - JSON.stringify({ parent_rules: [], pad: '' }).length) });
  const rules = (n: number) => ({
    parent_rules: Array.from({ length: n }, () => ({ field: 'domain_free', operator: '==', target: { bool: true }, action: 'block' })),
  });

  it.each([
    [
      'depth',
      nested(CUSTOM_POLICY_LIMITS.depth),
      nested(CUSTOM_POLICY_LIMITS.depth + 1),
      `custom_policy: nesting deeper than ${CUSTOM_POLICY_LIMITS.depth} levels`,
    ],
    [
      'bytes',
      ofJsonBytes(CUSTOM_POLICY_LIMITS.bytes),
      ofJsonBytes(CUSTOM_POLICY_LIMITS.bytes + 1),
      `custom_policy: larger than ${CUSTOM_POLICY_LIMITS.bytes} bytes of JSON (${CUSTOM_POLICY_LIMITS.bytes + 1})`,
    ],
    [
      'parent rules',
      rules(CUSTOM_POLICY_LIMITS.parentRules),
      rules(CUSTOM_POLICY_LIMITS.parentRules + 1),
      `custom_policy.parent_rules: more than ${CUSTOM_POLICY_LIMITS.parentRules} parent rules`,
    ],
  ])('%s, at its number and one past it', (_limit, atLimit, pastLimit, message) => {
    expect(refusal(atLimit)).toBeNull();
    expect(refusal(pastLimit)).toBe(message);
  });

  it('refuses one 100,000 levels deep, and one that refers to itself, by their depth', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(refusal({ parent_rules: [], extra: deep })).toBe('custom_policy: nesting deeper than 64 levels');
    const loop: Record<string, unknown> = { parent_rules: [] };
    loop.self = loop;
    expect(refusal(loop)).toBe('custom_policy: nesting deeper than 64 levels');
  });
});

describe('a reload and a stored text are held to the limits as a file is', () => {
  let dir: string;
  let book: PolicyBook;
  const SOFT = fixturePolicy('plus-soft');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-limits-'));
    await writeFile(join(dir, 'signup.yaml'), SOFT);
    book = PolicyBook.load(dir, catalog);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(DEEP_POLICIES)('a reloaded file %s fails and the policy in use stays', async (_name, text) => {
    await writeFile(join(dir, 'signup.yaml'), text);
    const [outcome] = book.reloadFolders();
    expect(outcome).toMatchObject({ policy: 'signup', result: 'failed', previous: policyRevision(SOFT) });
    expect(outcome?.problems[0]?.message).toBe(DEPTH_REFUSAL);
    expect(book.byName('signup')?.revision).toBe(policyRevision(SOFT));
  });

  it.each(DEEP_POLICIES)("a project's stored text %s is refused, and the project is named with it", (_name, text) => {
    const project = { id: `p-${text.length}`, name: 'deep', policy: 'deep', policySource: text };
    expect(() => book.forProject(project)).toThrow(PolicyLimitError);
    expect(book.resolveProjects([project])).toMatchObject([{ project: 'deep', problems: [{ message: DEPTH_REFUSAL }] }]);
  });
});

describe('no text within the limits builds a document deeper than the depth limit', () => {
  const depthOf = (text: string) => {
    let deepest = 0;
    const stack: [unknown, number][] = [[parseDocument(text, { uniqueKeys: false }).contents, 1]];
    for (let next = stack.pop(); next; next = stack.pop()) {
      const [node, depth] = next;
      if (!isMap(node) && !isSeq(node)) continue;
      deepest = Math.max(deepest, depth);
      for (const item of node.items) {
        if (isPair(item)) stack.push([item.key, depth + 1], [item.value, depth + 1]);
        else stack.push([item, depth + 1]);
      }
    }
    return deepest;
  };
  const piece = fc.constantFrom(
    'a',
    ': ',
    ':',
    '- ',
    '? ',
    '[',
    ']',
    '{',
    '}',
    ', ',
    '"x"',
    "'x'",
    '"',
    "'",
    ' #c',
    '&a ',
    '*a ',
    '!t ',
    '| ',
    ' ',
    '\t',
    '\\',
    "''",
  );
  const line = fc.tuple(fc.nat(4), fc.array(piece, { minLength: 1, maxLength: 7 })).map(([indent, pieces]) => ' '.repeat(indent) + pieces.join(''));
  // A few lines repeated up to 150 times: a construct that nests deeper each time shows.
  const text = fc
    .tuple(fc.array(line, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 150 }))
    .map(([lines, times]) => HEAD + `${lines.join('\n')}\n`.repeat(times));

  it('whatever its lines', () => {
    fc.assert(
      fc.property(text, (t) => {
        if (limitRefusal(t) === null) expect(depthOf(t)).toBeLessThanOrEqual(POLICY_LIMITS.depth);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the limits are written once', () => {
  const json = (file: string) => JSON.parse(readFileSync(join(packageRoot, file), 'utf8'));
  it('the JSON Schemas give the same numbers', () => {
    const policy = json('schemas/policy.schema.json');
    expect(policy.properties.checks.maxProperties).toBe(POLICY_LIMITS.checks);
    expect(policy.properties.rules.maxItems).toBe(POLICY_LIMITS.rules);
    expect(policy.properties.intelligence.properties.parent_rules.maxItems).toBe(POLICY_LIMITS.parentRules);
    const playground = json('schemas/playground-evaluate-request.schema.json');
    expect(playground.properties.policy.maxUtf8Bytes).toBe(POLICY_LIMITS.bytes);
    const intelligence = json('schemas/intelligence-request.schema.json');
    expect(intelligence.properties.custom_policy.properties.parent_rules.maxItems).toBe(CUSTOM_POLICY_LIMITS.parentRules);
  });

  it('docs/policy-limits.md lists each of them with its number', () => {
    const [text, custom] = readFileSync(join(packageRoot, 'docs/policy-limits.md'), 'utf8').split('## A request');
    const listed = (section: string | undefined, limits: Record<string, number>) =>
      Object.fromEntries(
        Object.keys(limits).map((key) => {
          const row = new RegExp(`^\\|[^|]*\\(\`${key}\`\\)\\s*\\|\\s*([0-9,]+)`, 'm').exec(section ?? '');
          return [key, row ? Number(row[1]?.replaceAll(',', '')) : null];
        }),
      );
    expect(listed(text, POLICY_LIMITS)).toEqual(POLICY_LIMITS);
    expect(listed(custom, CUSTOM_POLICY_LIMITS)).toEqual(CUSTOM_POLICY_LIMITS);
  });
});
