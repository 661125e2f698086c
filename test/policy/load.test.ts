import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/policy/errors.js';
import { POLICY_MAX_BYTES, parsePolicy } from '../../src/policy/load.js';

function problemsOf(text: string) {
  try {
    parsePolicy('p.yaml', text);
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  throw new Error('expected the policy to be refused');
}

describe('loading a policy', () => {
  it('accepts a minimal policy and names its revision by content', () => {
    const a = parsePolicy('a.yaml', 'version: "1.0"\n');
    const b = parsePolicy('b.yaml', 'version: "1.0"\ndescription: x\n');
    expect(a.document).toEqual({ version: '1.0' });
    expect(a.revision).toMatch(/^[0-9a-f]{16}$/);
    expect(b.revision).not.toBe(a.revision);
  });

  it('reports a YAML syntax error with line and column', () => {
    const [p] = problemsOf('version: "1.0"\nchecks:\n  structure: { mode: hard\n');
    expect(p).toMatchObject({ file: 'p.yaml', line: expect.any(Number), column: expect.any(Number) });
    expect(p!.line).toBeGreaterThanOrEqual(3);
  });

  it('reports a schema violation at the offending node', () => {
    const problems = problemsOf('version: "1.0"\nchecks:\n  structure:\n    mode: strict\n');
    expect(problems).toEqual([expect.objectContaining({ line: 4, column: 11, path: '/checks/structure/mode', message: 'must be one of: hard, soft' })]);
  });

  it('names an unknown field and where it is', () => {
    const [p] = problemsOf('version: "1.0"\ndefault_acton: block\n');
    expect(p).toMatchObject({ line: 2, path: '/default_acton', message: 'unknown field "default_acton"' });
  });

  it('names a missing required field', () => {
    const [p] = problemsOf('description: no version\n');
    expect(p).toMatchObject({ path: '/version', message: 'is required' });
  });

  it('explains a malformed rule condition in one sentence', () => {
    const problems = problemsOf(
      ['version: "1.0"', 'rules:', '  - name: r', '    action: block', '    conditions: { fakt: x, operator: equal, value: 1 }'].join('\n'),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 5, path: '/rules/0/conditions' });
    expect(problems[0]!.message).toMatch(/all.*any.*not.*fact, operator, value/);
  });

  it('refuses duplicate keys', () => {
    expect(problemsOf('version: "1.0"\nversion: "2.0"\n')[0]!.message).toMatch(/unique/i);
  });

  it(`refuses a policy over ${POLICY_MAX_BYTES} bytes`, () => {
    const big = `version: "1.0"\ndescription: x\n# ${'x'.repeat(POLICY_MAX_BYTES)}\n`;
    expect(problemsOf(big)[0]!.message).toMatch(`larger than ${POLICY_MAX_BYTES} bytes`);
  });

  it('accepts a policy just under the size limit', () => {
    const header = 'version: "1.0"\n# ';
    const text = `${header + 'x'.repeat(POLICY_MAX_BYTES - header.length - 1)}\n`;
    expect(Buffer.byteLength(text)).toBe(POLICY_MAX_BYTES);
    expect(parsePolicy('p.yaml', text).document.version).toBe('1.0');
  });

  it('refuses alias bombs', () => {
    const bomb = [
      'version: "1.0"',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(() => parsePolicy('p.yaml', bomb)).toThrow(PolicyError);
  });
});

describe('policy list limits', () => {
  const rule = (i: number) => `  - { name: r${i}, action: warn, conditions: { fact: has_numeric, operator: equal, value: true } }`;

  it('accepts 200 free rules and refuses 201', () => {
    const policy = (n: number) => `version: "1.0"\nrules:\n${Array.from({ length: n }, (_, i) => rule(i)).join('\n')}\n`;
    expect(parsePolicy('p.yaml', policy(200)).document.rules).toHaveLength(200);
    expect(problemsOf(policy(201))[0]).toMatchObject({ path: '/rules', message: 'must NOT have more than 200 items' });
  });

  it('refuses more than 50 conditions in one all', () => {
    const conditions = Array.from({ length: 51 }, () => '{ fact: has_numeric, operator: equal, value: true }').join(', ');
    const problems = problemsOf(`version: "1.0"\nrules:\n  - { name: r, action: warn, conditions: { all: [${conditions}] } }\n`);
    expect(problems[0]!.path).toMatch(/^\/rules\/0\/conditions/);
  });
});
