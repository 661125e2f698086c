// Education: the domain belongs to a school, college or university (swot's list, or an academic suffix).
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { selfAndParents } from '../../src/host-name.js';
import { factCheck } from '../fact-checks.js';
import { asciiDomainOf, dataLists, readList } from '../plugin-data.js';

/** Institution domains (swot), with their subdomains. */
const INSTITUTIONS = readList('education', 'domains.txt');
/** Never academic, nor anything under them unless an institution is listed below them: alumni, abused, stoplisted. */
const EXCLUDED = readList('education', 'excluded.txt');
/** Every domain strictly below one of these is academic (edu, ac.uk, k12.ca.us, ...). */
const SUFFIXES = readList('education', 'academic-suffixes.txt');

/** Walks `domain` and its parents, most specific first: the first listed name decides. */
function academicMatch(domain: string): string | null {
  for (const name of selfAndParents(domain)) {
    if (EXCLUDED.has(name)) return null;
    if (INSTITUTIONS.has(name)) return name;
    if (name !== domain && SUFFIXES.has(name)) return name;
  }
  return null;
}

const plugin: Plugin = {
  id: 'education',
  description: 'Whether the domain belongs to an educational institution: a listed school or university domain, or a domain under an academic suffix.',
  steps: ['education_domain'],
  codes: {
    domain_is_education: { error: 'classification', warning: 'the domain is a school or university' },
  },
  facts: {
    is_education_domain: {
      type: 'boolean',
      description: 'The domain (or a parent) is a listed institution, or lies under an academic suffix such as edu or ac.uk.',
      expose: 'flag',
    },
    education_match: {
      type: 'string',
      description: 'The listed institution domain or academic suffix that matched (ASCII form); null when none did.',
    },
  },
  checks: {
    education_domain: factCheck('education_domain', 'is_education_domain', 'domain_is_education', 'The domain is an educational institution.'),
  },
  needs: ['structure', 'idn'],
  data: dataLists('education', [
    { file: 'domains.txt', entries: INSTITUTIONS.size },
    { file: 'excluded.txt', entries: EXCLUDED.size },
    { file: 'academic-suffixes.txt', entries: SUFFIXES.size },
  ]),
  async run(ctx): Promise<FactValues> {
    const name = await asciiDomainOf(ctx);
    if (name === null) return {};
    const match = academicMatch(name);
    return { is_education_domain: match !== null, education_match: match };
  },
};

export default plugin;
