// Government: the domain belongs to a government body (gov, mil, a government suffix, or a curated government domain).
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { selfAndParents } from '../../src/host-name.js';
import { factCheck } from '../fact-checks.js';
import { asciiDomainOf, dataLists, readList } from '../plugin-data.js';

/** Public suffixes reserved to government and military bodies (gov, mil, gov.uk, gouv.fr, go.jp, ...). */
const SUFFIXES = readList('government', 'suffixes.txt');
/** Government registrable domains under no such suffix (europa.eu, admin.ch, bund.de, canada.ca, ...). */
const DOMAINS = readList('government', 'domains.txt');

/**
 * RFC 1480 §2 locality names under .us: a city's government is ci.<city>.<state>.us and a county's
 * co.<county>.<state>.us (the state codes of the Public Suffix List's "us geographic names").
 */
const US_LOCAL_GOVERNMENT =
  /(?:^|\.)((?:ci|co)\.[a-z0-9-]+\.(?:ak|al|ar|as|az|ca|co|ct|dc|de|fl|ga|gu|hi|ia|id|il|in|ks|ky|la|ma|md|me|mi|mn|mo|ms|mt|nc|nd|ne|nh|nj|nm|nv|ny|oh|ok|or|pa|pr|ri|sc|sd|tn|tx|ut|vi|vt|va|wa|wi|wv|wy)\.us)$/;

/**
 * Walks `domain` and its parents, most specific first: a curated domain matches itself, a suffix only
 * what lies below it; then a US city or county government name (itself and below).
 */
function governmentMatch(domain: string): string | null {
  for (const name of selfAndParents(domain)) {
    if (DOMAINS.has(name)) return name;
    if (name !== domain && SUFFIXES.has(name)) return name;
  }
  return US_LOCAL_GOVERNMENT.exec(domain)?.[1] ?? null;
}

const plugin: Plugin = {
  id: 'government',
  description: 'Whether the domain belongs to a government body: under gov, mil or a government public suffix, or a curated government domain.',
  steps: ['government_domain'],
  codes: {
    domain_is_government: { error: 'classification', warning: 'the domain is a government body' },
  },
  facts: {
    is_government_domain: {
      type: 'boolean',
      description: 'The domain lies under gov, mil or a government suffix (gov.uk, gouv.fr, ...), or is (under) a curated government domain.',
      expose: 'flag',
    },
    government_match: {
      type: 'string',
      description: 'The government suffix or curated domain that matched (ASCII form); null when none did.',
    },
  },
  checks: {
    government_domain: factCheck('government_domain', 'is_government_domain', 'domain_is_government', 'The domain is a government domain.'),
  },
  needs: ['structure', 'idn'],
  data: dataLists('government', [
    { file: 'suffixes.txt', entries: SUFFIXES.size },
    { file: 'domains.txt', entries: DOMAINS.size },
  ]),
  async run(ctx): Promise<FactValues> {
    const name = await asciiDomainOf(ctx);
    if (name === null) return {};
    const match = governmentMatch(name);
    return { is_government_domain: match !== null, government_match: match };
  },
};

export default plugin;
