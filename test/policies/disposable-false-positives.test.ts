// Zero false positives of the disposable check (issue 11): under the default policy no free-provider domain
// (plugins/free-provider/data/providers.json, both groups) and no privacy relay (never-disposable.txt, with
// the alias forms the relays hand out) is disposable, and none is blocked.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { readDataFile, readList } from '../../plugins/plugin-data.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { evaluateFor } from '../support/plugin-tester.js';

const policy = PolicyBook.load(policiesDir, new FactCatalog(registry)).byName('default')!;

const providers = JSON.parse(readDataFile('free-provider', 'providers.json')) as Record<string, { group: string; domains: string[] }>;
const providerDomains = [...new Set(Object.values(providers).flatMap((p) => p.domains))].sort();
const never = [...readList('disposable', 'never-disposable.txt')].sort();

/** The addresses a relay gives out: on the relay's domain and, for those with per-user subdomains, below it. */
const RELAY_ALIASES = [
  'x7f2k9@duck.com',
  'shop.abc123@simplelogin.com',
  'news_9f3k@aleeas.com',
  'amazon.x1y2@passmail.net',
  'tidy.fox1234@passinbox.com',
  'random-word@addymail.com',
  'shop@alice.anonaddy.com',
  'shop@alice.anonaddy.me',
  'abc123xyz@mozmail.com',
  'q8w2e7r1t3@privaterelay.appleid.com',
  'github@alice.33mail.com',
  'site.3.alice@spamgourmet.com',
];

async function verdict(email: string) {
  const { decision, fact } = await evaluateFor(policy, { email });
  return { disposable: await fact('is_disposable_domain'), blocked: decision.action === 'block', errors: decision.errors };
}

describe('default policy: no free provider and no privacy relay is disposable', () => {
  it(`none of the ${providerDomains.length} free-provider domains`, async () => {
    expect(providerDomains.length).toBeGreaterThan(1000);
    const flagged: string[] = [];
    for (const domain of providerDomains) {
      const v = await verdict(`jane.doe@${domain}`);
      if (v.disposable !== false || v.blocked || v.errors.includes('domain_is_disposable')) flagged.push(domain);
    }
    expect(flagged).toEqual([]);
  });

  it(`none of the ${never.length} never-disposable domains`, async () => {
    const flagged: string[] = [];
    for (const domain of never) {
      const v = await verdict(`jane.doe@${domain}`);
      if (v.disposable !== false || v.blocked) flagged.push(domain);
    }
    expect(flagged).toEqual([]);
  });

  it.each(RELAY_ALIASES)('relay alias %s', async (email) => {
    expect(await verdict(email)).toMatchObject({ disposable: false, blocked: false });
  });

  it('while a listed throwaway is blocked by the same policy (the test can fail)', async () => {
    expect(await verdict('jane.doe@mailinator.com')).toMatchObject({ disposable: true, blocked: true, errors: ['domain_is_disposable'] });
  });
});
