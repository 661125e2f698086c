// Every shipped policy and custom verdict over the generated inputs of equivalence-cases.ts gives what the
// engine gave before it ran as published (test/fixtures/policy-equivalence.json, recorded from that code
// with EQUIVALENCE_WRITE=1): actions, codes, fired checks, steps, checked types, explanations and facts.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caseKey, cases, runCase } from './equivalence-cases.js';

const FIXTURE = new URL('../fixtures/policy-equivalence.json', import.meta.url);
/** Lists many cases share, held once in the fixture's `lists` and named by their index. */
const SHARED = ['steps', 'checkedTypes', 'applied'];

interface Fixture {
  lists: unknown[][];
  cases: Record<string, Record<string, unknown>>;
}

function write(answers: Record<string, Record<string, unknown>>): void {
  const lists: string[] = [];
  const index = new Map<string, number>();
  const lines = Object.entries(answers).map(([key, answer]) => {
    const shown = { ...answer };
    for (const field of SHARED) {
      if (!(field in shown)) continue;
      const json = JSON.stringify(shown[field]);
      let i = index.get(json);
      if (i === undefined) {
        i = lists.push(json) - 1;
        index.set(json, i);
      }
      shown[field] = i;
    }
    return `${JSON.stringify(key)}: ${JSON.stringify(shown)}`;
  });
  writeFileSync(FIXTURE, `{"lists": [\n${lists.join(',\n')}\n],\n"cases": {\n${lines.join(',\n')}\n}}\n`);
}

function read(): Record<string, unknown> {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
  const answers: Record<string, unknown> = {};
  for (const [key, shown] of Object.entries(fixture.cases)) {
    const answer = { ...shown };
    for (const field of SHARED) if (field in answer) answer[field] = fixture.lists[answer[field] as number];
    answers[key] = answer;
  }
  return answers;
}

describe('policy equivalence', () => {
  it('gives every recorded case the recorded answer', async () => {
    const answers: Record<string, Record<string, unknown>> = {};
    for (const c of cases()) answers[caseKey(c)] = JSON.parse(JSON.stringify(await runCase(c)));
    if (process.env.EQUIVALENCE_WRITE === '1') {
      write(answers);
      return;
    }
    const recorded = read();
    expect(Object.keys(answers).sort()).toEqual(Object.keys(recorded).sort());
    // One case at a time, so a difference names its case.
    for (const key of Object.keys(recorded)) expect({ key, answer: answers[key] }).toEqual({ key, answer: recorded[key] });
  }, 300_000);
});
