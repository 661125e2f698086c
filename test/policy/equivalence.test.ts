// Every shipped policy and custom verdict over the generated inputs of equivalence-cases.ts gives what the
// engine gave before it ran as published (test/fixtures/policy-equivalence/, recorded from that code
// with EQUIVALENCE_WRITE=1): actions, codes, fired checks, steps, checked types, explanations and facts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caseKey, cases, catalog, runCase } from './equivalence-cases.js';

/** One file per policy (and per custom verdict), a line per case (biome.json leaves them as written). */
const FIXTURES = new URL('../fixtures/policy-equivalence/', import.meta.url);
const fileOf = (key: string) => new URL(`${key.slice(0, key.indexOf('|')).replace('#', '-')}.json`, FIXTURES);
/** Lists many cases share, held once in the fixture's `lists` and named by their index. */
const SHARED = ['steps', 'checkedTypes', 'applied'];

interface Fixture {
  /** The plugins whose facts each live case's `facts` digest covers: those registered when it was recorded. */
  factPlugins: string[];
  lists: unknown[][];
  cases: Record<string, Record<string, unknown>>;
}

function write(answers: Record<string, Record<string, unknown>>, factPlugins: readonly string[]): void {
  const byFile = new Map<string, Record<string, Record<string, unknown>>>();
  for (const [key, answer] of Object.entries(answers)) {
    const file = fileOf(key).href;
    const some = byFile.get(file) ?? {};
    some[key] = answer;
    byFile.set(file, some);
  }
  mkdirSync(FIXTURES, { recursive: true });
  for (const [file, some] of byFile) writeFixture(new URL(file), some, factPlugins);
}

function writeFixture(file: URL, answers: Record<string, Record<string, unknown>>, factPlugins: readonly string[]): void {
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
  writeFileSync(file, `{"factPlugins": ${JSON.stringify(factPlugins)},\n"lists": [\n${lists.join(',\n')}\n],\n"cases": {\n${lines.join(',\n')}\n}}\n`);
}

function read(): { factPlugins: string[]; answers: Record<string, unknown> } {
  const answers: Record<string, unknown> = {};
  let factPlugins: string[] | undefined;
  for (const name of readdirSync(FIXTURES).sort()) {
    const fixture = JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Fixture;
    factPlugins ??= fixture.factPlugins;
    if (JSON.stringify(fixture.factPlugins) !== JSON.stringify(factPlugins)) throw new Error(`${name}: recorded with other plugins than the other fixtures`);
    for (const [key, shown] of Object.entries(fixture.cases)) {
      const answer = { ...shown };
      for (const field of SHARED) if (field in answer) answer[field] = fixture.lists[answer[field] as number];
      answers[key] = answer;
    }
  }
  return { factPlugins: factPlugins ?? [], answers };
}

describe('policy equivalence', () => {
  it('gives every recorded case the recorded answer', async () => {
    const writing = process.env.EQUIVALENCE_WRITE === '1';
    const { factPlugins, answers: recorded } = writing ? { factPlugins: [...catalog.plugins.keys()].sort(), answers: {} } : read();
    const answers: Record<string, Record<string, unknown>> = {};
    for (const c of cases()) answers[caseKey(c)] = JSON.parse(JSON.stringify(await runCase(c, factPlugins)));
    if (writing) {
      write(answers, factPlugins);
      return;
    }
    expect(Object.keys(answers).sort()).toEqual(Object.keys(recorded).sort());
    if (process.env.EQUIVALENCE_SUMMARY === '1') {
      const differ: Record<string, number> = {};
      for (const key of Object.keys(recorded)) {
        const want = recorded[key] as Record<string, unknown>;
        const got = answers[key] ?? {};
        for (const field of new Set([...Object.keys(want), ...Object.keys(got)]))
          if (JSON.stringify(want[field]) !== JSON.stringify(got[field])) {
            differ[field] = (differ[field] ?? 0) + 1;
            if (differ[field] <= 3) console.log(key, field, JSON.stringify(want[field]), JSON.stringify(got[field]));
          }
      }
      console.log('fields that differ, by cases:', differ);
    }
    // One case at a time, so a difference names its case.
    for (const key of Object.keys(recorded)) expect({ key, answer: answers[key] }).toEqual({ key, answer: recorded[key] });
  }, 300_000);
});
