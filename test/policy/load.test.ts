import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { PolicyError } from '../../src/policy/errors.js';
import { POLICY_LIMITS } from '../../src/policy/limits.js';
import { checkPolicy } from '../../src/policy/load.js';

const catalog = new FactCatalog(registry);
const check = (file: string, text: string) => checkPolicy({ name: file, file, text }, catalog);

/** Every problem the policy is refused for: syntax, schema and the compiler's. */
function problemsOf(text: string) {
  try {
    check('p.yaml', text);
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  throw new Error('expected the policy to be refused');
}

describe('loading a policy', () => {
  it('accepts a minimal policy and names its revision by content', () => {
    const a = check('a.yaml', 'version: "1.0"\n');
    const b = check('b.yaml', 'version: "1.0"\ndescription: x\n');
    expect(a.document).toEqual({ version: '1.0' });
    expect(a.revision).toMatch(/^[0-9a-f]{16}$/);
    expect(b.revision).not.toBe(a.revision);
  });

  it.each([
    [
      'an unclosed { at the {, not on the next line',
      'version: "1.0"\nchecks:\n  structure: { mode: hard, action: block\n  local_plus: { mode: soft }\n',
      { line: 3, column: 14, path: '/checks/structure', message: 'this { is never closed: end it with } (on this line, or indent the lines it continues on)' },
    ],
    [
      'an unclosed [ at the [, not at the end of the file',
      'version: "1.0"\nrules: [\n',
      { line: 2, column: 8, path: '/rules', message: expect.stringMatching(/this \[ is never closed/) },
    ],
    [
      'an unclosed quote at the quote',
      "version: '1.0\nchecks: {}\n",
      { line: 1, column: 10, path: '/version', message: expect.stringMatching(/quoted string is never closed/) },
    ],
    [
      'an over-indented line at that line, with the path of the value above it',
      'version: "1.0"\nchecks:\n  structure:\n    mode: hard\n      action: block\n',
      { line: 5, column: 7, path: '/checks/structure/mode', message: expect.stringMatching(/indented deeper than the key above it/) },
    ],
    [
      'a misaligned key at its first character',
      'version: "1.0"\nchecks:\n  structure:\n    mode: hard\n   action: block\n',
      { line: 5, column: 4, message: 'All mapping items must start at the same column' },
    ],
  ])('places a YAML syntax error where the mistake is: %s', (_name, text, expected) => {
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'p.yaml', ...expected });
  });

  it('reports a schema violation at the offending node', () => {
    const problems = problemsOf('version: "1.0"\nchecks:\n  structure:\n    mode: strict\n');
    expect(problems).toEqual([expect.objectContaining({ line: 4, column: 11, path: '/checks/structure/mode', message: 'must be one of: hard, soft' })]);
  });

  it('suggests the closest allowed value for a misspelt one (operator, mode, action)', () => {
    const problems = problemsOf(
      'version: "1.0"\nchecks:\n  structure: { mode: hardd, action: blok }\nrules:\n  - { name: r, action: warn, warning: w, conditions: { fact: has_numeric, operator: equals, value: true } }\n',
    );
    expect(problems.map((p) => [p.path, p.message.replace(/^must be one of: .*?; /, '')])).toEqual([
      ['/checks/structure/mode', 'got "hardd"; did you mean "hard"?'],
      ['/checks/structure/action', 'got "blok"; did you mean "block"?'],
      ['/rules/0/conditions/operator', 'got "equals"; did you mean "equal"?'],
    ]);
  });

  it('reports a missing field beside a bad value deeper down: both, not only the deeper one', () => {
    const problems = problemsOf('version: "1.0"\nrules:\n  - name: r\n    conditions: { fact: has_numeric, operator: equals, value: true }\n');
    expect(problems.map((p) => p.path)).toEqual(['/rules/0/action', '/rules/0/conditions/operator']);
    expect(problems[0]!.message).toBe('is required');
  });

  it('names an unknown field and where it is', () => {
    const [p] = problemsOf('version: "1.0"\ndefault_acton: block\n');
    expect(p).toMatchObject({
      line: 2,
      path: '/default_acton',
      message:
        'unknown field "default_acton"; did you mean "default_action"? Known fields: version, description, default_action, checks, rules, exemptions, intelligence, tests',
    });
  });

  it.each([
    ['version: 1.0\n', '/version', 'must be of type string; put it in quotes (version: "1.0"): unquoted, YAML reads 1.0 as a number'],
    [
      'version: "1.0"\ndescription: true\n',
      '/description',
      'must be of type string; put it in quotes (description: "true"): unquoted, YAML reads true as a boolean',
    ],
  ])('tells to quote a number or a boolean where a string belongs (%j)', (text, path, message) => {
    expect(problemsOf(text)).toContainEqual(expect.objectContaining({ path, message }));
  });

  it('names a missing required field', () => {
    const [p] = problemsOf('description: no version\n');
    expect(p).toMatchObject({ path: '/version', message: 'is required' });
  });

  it('explains a malformed rule condition in one sentence', () => {
    const problems = problemsOf(
      ['version: "1.0"', 'rules:', '  - name: r', '    action: block', '    error: e', '    conditions: { fakt: x, operator: equal, value: 1 }'].join('\n'),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 6, path: '/rules/0/conditions' });
    expect(problems[0]!.message).toMatch(/all.*any.*not.*fact, operator, value/);
  });

  it('refuses duplicate keys', () => {
    expect(problemsOf('version: "1.0"\nversion: "2.0"\n')[0]!.message).toMatch(/unique/i);
  });

  it(`refuses a policy over ${POLICY_LIMITS.bytes} bytes`, () => {
    const big = `version: "1.0"\ndescription: x\n# ${'x'.repeat(POLICY_LIMITS.bytes)}\n`;
    expect(problemsOf(big)[0]!.message).toMatch(`larger than ${POLICY_LIMITS.bytes} bytes`);
  });

  it('accepts a policy just under the size limit', () => {
    const header = 'version: "1.0"\n# ';
    const text = `${header + 'x'.repeat(POLICY_LIMITS.bytes - header.length - 1)}\n`;
    expect(Buffer.byteLength(text)).toBe(POLICY_LIMITS.bytes);
    expect(check('p.yaml', text).document.version).toBe('1.0');
  });

  it('refuses alias bombs', () => {
    const bomb = [
      'version: "1.0"',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(() => check('p.yaml', bomb)).toThrow(PolicyError);
  });
});

describe('policy list limits', () => {
  const rule = (i: number) => `  - { name: r${i}, action: warn, warning: w, conditions: { fact: has_numeric, operator: equal, value: true } }`;

  it('accepts 200 free rules and refuses 201', () => {
    const policy = (n: number) => `version: "1.0"\nrules:\n${Array.from({ length: n }, (_, i) => rule(i)).join('\n')}\n`;
    expect(check('p.yaml', policy(200)).document.rules).toHaveLength(200);
    expect(problemsOf(policy(201))[0]).toMatchObject({ path: '/rules', message: 'more than 200 rules' });
  });

  it('refuses more than 50 conditions in one all', () => {
    const conditions = Array.from({ length: 51 }, () => '{ fact: has_numeric, operator: equal, value: true }').join(', ');
    const problems = problemsOf(`version: "1.0"\nrules:\n  - { name: r, action: warn, warning: w, conditions: { all: [${conditions}] } }\n`);
    expect(problems[0]!.path).toMatch(/^\/rules\/0\/conditions/);
  });
});
