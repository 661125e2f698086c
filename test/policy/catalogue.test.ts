// The fact catalogue is generated from the plugins' metadata; docs/facts.md is its output, kept current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { wordsOf } from '../../src/engine/words.js';
import { packageRoot } from '../../src/paths.js';
import { catalogueMarkdown, catalogueOf, conditionText } from '../../src/policy/catalogue.js';

const catalog = new FactCatalog(registry);

describe('the fact catalogue', () => {
  it('docs/facts.md is current (run `npm run docs` when this fails)', () => {
    const file = readFileSync(join(packageRoot, 'docs', 'facts.md'), 'utf8');
    expect(file, 'docs/facts.md is stale: run `npm run docs` and commit it').toBe(catalogueMarkdown(catalog));
  });

  it('lists every check and every fact of every plugin, each once', () => {
    const { checks, facts } = catalogueOf(catalog);
    expect(checks.map((c) => c.name).sort()).toEqual([...catalog.checkOwner.keys()].sort());
    expect(facts.map((f) => f.name).sort()).toEqual([...catalog.owner.keys()].sort());
  });

  it('says when each check fires, with its default options', () => {
    const byName = new Map(catalogueOf(catalog).checks.map((c) => [c.name, c]));
    expect(byName.get('local_plus')).toMatchObject({ plugin: 'local-part', code: 'local_contains_plus_symbol', firesWhen: 'has_plus_addressing = true' });
    expect(byName.get('ip_duplication')).toMatchObject({ firesWhen: 'distinct_emails_in_ip ≥ 3', defaults: { threshold: 3, window: 'total' } });
    expect(byName.get('mx_record')?.firesWhen).toBe('mx_record_status = "invalid" and mx_record_count = 0');
  });

  it('renders nested conditions with their grouping', () => {
    expect(
      conditionText({
        all: [
          { fact: 'a', operator: 'equal', value: 1 },
          { any: [{ not: { fact: 'b', operator: 'in', value: ['x'] } }, { fact: 'c', operator: 'lessThan', value: 2 }] },
        ],
      }),
    ).toBe('a = 1 and (not b in ["x"] or c < 2)');
  });

  it('lists every step and code the plugins declare', () => {
    const text = catalogueMarkdown(catalog);
    const words = wordsOf(registry);
    for (const step of words.steps) expect(text).toContain(`| \`${step}\` |`);
    for (const code of words.codes) expect(text).toContain(`\`${code}\``);
  });
});
