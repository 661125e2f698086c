import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import government from './index.js';

const yes = (match: string) => ({ is_government_domain: true, government_match: match });
const no = { is_government_domain: false, government_match: null };
const unknown = { is_government_domain: null, government_match: null };

testPlugin(government, [
  { email: 'a@nasa.gov', facts: yes('gov'), fires: ['government_domain'] },
  { name: 'subdomain under the gov TLD', email: 'a@www.nasa.gov', facts: yes('gov'), fires: ['government_domain'] },
  { email: 'a@army.mil', facts: yes('mil'), fires: ['government_domain'] },
  { email: 'a@us.af.mil', facts: yes('mil'), fires: ['government_domain'] },
  { email: 'a@hmrc.gov.uk', facts: yes('gov.uk'), fires: ['government_domain'] },
  { name: 'deep under gov.uk', email: 'a@digital.cabinet-office.gov.uk', facts: yes('gov.uk'), fires: ['government_domain'] },
  { email: 'a@interieur.gouv.fr', facts: yes('gouv.fr'), fires: ['government_domain'] },
  { email: 'a@mofa.go.jp', facts: yes('go.jp'), fires: ['government_domain'] },
  { email: 'a@sat.gob.mx', facts: yes('gob.mx'), fires: ['government_domain'] },
  { email: 'a@ato.gov.au', facts: yes('gov.au'), fires: ['government_domain'] },
  { email: 'a@meity.gov.in', facts: yes('gov.in'), fires: ['government_domain'] },
  { name: 'Government of India hosts under nic.in', email: 'a@mea.nic.in', facts: yes('nic.in'), fires: ['government_domain'] },
  { email: 'a@receita.gov.br', facts: yes('gov.br'), fires: ['government_domain'] },
  { name: 'most specific entry wins', email: 'a@saude.go.gov.br', facts: yes('go.gov.br'), fires: ['government_domain'] },
  { email: 'a@bka.gv.at', facts: yes('gv.at'), fires: ['government_domain'] },
  { email: 'a@mfa.go.kr', facts: yes('go.kr'), fires: ['government_domain'] },
  { email: 'a@dia.govt.nz', facts: yes('govt.nz'), fires: ['government_domain'] },
  { name: 'Government of Canada under gc.ca', email: 'a@forces.gc.ca', facts: yes('gc.ca'), fires: ['government_domain'] },
  { name: 'wildcard TLD (*.bd): gov.bd', email: 'a@cabinet.gov.bd', facts: yes('gov.bd'), fires: ['government_domain'] },
  { name: 'IDN suffix 政府.hk, Unicode form', email: 'a@dept.政府.hk', facts: yes('xn--mxtq1m.hk'), fires: ['government_domain'] },
  { name: 'the same in punycode', email: 'a@dept.xn--mxtq1m.hk', facts: yes('xn--mxtq1m.hk'), fires: ['government_domain'] },
  // Curated registrable domains.
  { email: 'a@ec.europa.eu', facts: yes('europa.eu'), fires: ['government_domain'] },
  { email: 'a@europa.eu', facts: yes('europa.eu'), fires: ['government_domain'] },
  { email: 'a@bit.admin.ch', facts: yes('admin.ch'), fires: ['government_domain'] },
  { email: 'a@bmi.bund.de', facts: yes('bund.de'), fires: ['government_domain'] },
  { email: 'a@canada.ca', facts: yes('canada.ca'), fires: ['government_domain'] },
  { email: 'a@mcc.gouv.qc.ca', facts: yes('gouv.qc.ca'), fires: ['government_domain'] },
  { email: 'a@fs.fed.us', facts: yes('fed.us'), fires: ['government_domain'] },
  { email: 'a@dot.state.ny.us', facts: yes('state.ny.us'), fires: ['government_domain'] },
  { email: 'A@HMRC.GOV.UK', facts: yes('gov.uk'), fires: ['government_domain'] },
  { name: 'trailing root dot', email: 'a@nasa.gov.', facts: yes('gov'), fires: ['government_domain'] },
  // False: look-alikes and labels elsewhere.
  { email: 'a@governor.com', facts: no, fires: [] },
  { name: 'gov as a subdomain of a company', email: 'a@gov.example.com', facts: no, fires: [] },
  { name: 'gov.uk as labels of a company domain', email: 'a@gov.uk.example.com', facts: no, fires: [] },
  { email: 'a@gmail.com', facts: no, fires: [] },
  { email: 'a@example.com', facts: no, fires: [] },
  { email: 'a@government.com', facts: no, fires: [] },
  { name: 'go.it is Gorizia, not government', email: 'a@comune.go.it', facts: no, fires: [] },
  { name: 'a company under co.uk', email: 'a@govtech.co.uk', facts: no, fires: [] },
  { name: "the suffix itself is nobody's domain", email: 'a@gov.uk', facts: no, fires: [] },
  { name: 'the gov TLD alone', email: 'a@gov', facts: no, fires: [] },
  { name: 'not a curated domain: a sibling of one', email: 'a@notbund.de', facts: no, fires: [] },
  { name: 'intergovernmental, not a government', email: 'a@un.org', facts: no, fires: [] },
  // Review of 2026-11-24 (data/SOURCE.md): what counts as government, both sides.
  { name: 'military is government: a state body (.mil)', email: 'a@navy.mil', facts: yes('mil'), fires: ['government_domain'] },
  { name: 'military under a ccTLD', email: 'a@army.mil.br', facts: yes('mil.br'), fires: ['government_domain'] },
  { name: 'Israel Defense Forces', email: 'a@mail.idf.il', facts: yes('idf.il'), fires: ['government_domain'] },
  { name: 'Bundeswehr mail domain (curated)', email: 'a@bundeswehr.org', facts: yes('bundeswehr.org'), fires: ['government_domain'] },
  { name: 'municipal is government: Norwegian kommune', email: 'a@postmottak.oslo.kommune.no', facts: yes('kommune.no'), fires: ['government_domain'] },
  { name: 'municipal: Polish gmina', email: 'a@ug.gmina.pl', facts: yes('gmina.pl'), fires: ['government_domain'] },
  { name: 'municipal: Japanese local government', email: 'a@city.yokohama.lg.jp', facts: yes('lg.jp'), fires: ['government_domain'] },
  { name: 'Brazilian state government under go.gov.br', email: 'a@economia.go.gov.br', facts: yes('go.gov.br'), fires: ['government_domain'] },
  { email: 'a@gob.es', facts: no, fires: [] },
  { email: 'a@aeat.gob.es', facts: yes('gob.es'), fires: ['government_domain'] },
  { email: 'a@kemenkeu.go.id', facts: yes('go.id'), fires: ['government_domain'] },
  { email: 'a@mof.gov.cn', facts: yes('gov.cn'), fires: ['government_domain'] },
  { email: 'a@bmf.gv.at', facts: yes('gv.at'), fires: ['government_domain'] },
  { name: 'Scottish Government (curated)', email: 'a@gov.scot', facts: yes('gov.scot'), fires: ['government_domain'] },
  { name: 'Welsh Government, English and Welsh names', email: 'a@gov.wales', facts: yes('gov.wales'), fires: ['government_domain'] },
  { email: 'a@llyw.cymru', facts: yes('llyw.cymru'), fires: ['government_domain'] },
  { name: 'Swedish Government Offices', email: 'a@gov.se', facts: yes('gov.se'), fires: ['government_domain'] },
  { name: 'Finnish Government', email: 'a@gov.fi', facts: yes('gov.fi'), fires: ['government_domain'] },
  { email: 'a@bundestag.de', facts: yes('bundestag.de'), fires: ['government_domain'] },
  { name: 'US city government (RFC 1480 locality name)', email: 'a@ci.berkeley.ca.us', facts: yes('ci.berkeley.ca.us'), fires: ['government_domain'] },
  { name: 'a department of a US county government', email: 'a@library.co.fairfax.va.us', facts: yes('co.fairfax.va.us'), fires: ['government_domain'] },
  { name: 'US tribal government (nsn.us)', email: 'a@navajo.nsn.us', facts: yes('nsn.us'), fires: ['government_domain'] },
  { name: 'a company under a US state name is not government', email: 'a@acme.co.ny.us', facts: no, fires: [] },
  { name: 'a US locality itself is not its government', email: 'a@berkeley.ca.us', facts: no, fires: [] },
  { name: 'ci. under no US state', email: 'a@ci.berkeley.zz.us', facts: no, fires: [] },
  { name: 'ci. under a company domain', email: 'a@ci.example.com', facts: no, fires: [] },
  { name: 'Public universities are education, not government', email: 'a@ox.ac.uk', facts: no, fires: [] },
  { email: 'a@berkeley.edu', facts: no, fires: [] },
  { email: 'a@tu-berlin.de', facts: no, fires: [] },
  { email: 'a@u-tokyo.ac.jp', facts: no, fires: [] },
  { name: 'public health service is not government', email: 'a@nhs.net', facts: no, fires: [] },
  { email: 'a@nhs.uk', facts: no, fires: [] },
  { name: 'public broadcaster is not government', email: 'a@bbc.co.uk', facts: no, fires: [] },
  { name: 'state-owned company is not government', email: 'a@deutschebahn.com', facts: no, fires: [] },
  { name: 'intergovernmental .int is not government', email: 'a@nato.int', facts: no, fires: [] },
  { email: 'a@ec.europa.eu.example.com', facts: no, fires: [] },
  { name: 'a Polish private company under pl', email: 'a@gmina-firma.pl', facts: no, fires: [] },
  { name: 'gov.scot look-alike', email: 'a@govscot.com', facts: no, fires: [] },
  // Unknown.
  { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
  { name: 'IPv6 literal', email: 'a@[IPv6:2001:db8::1]', facts: unknown, fires: [] },
  { name: 'empty label', email: 'a@nasa..gov', facts: unknown, fires: [] },
]);

describe('government check', () => {
  it('fires with its code domain_is_government: in errors when hard, in warnings when soft, nothing with action none', async () => {
    const hard = await decisionFor({ government_domain: { mode: 'hard' } }, 'a@hmrc.gov.uk');
    expect(hard.fired.map((v) => v.name)).toEqual(['government_domain']);
    expect(hard).toMatchObject({ action: 'block', errors: ['domain_is_government'], warnings: [] });
    const soft = await decisionFor({ government_domain: { mode: 'soft', action: 'challenge' } }, 'a@hmrc.gov.uk');
    expect(soft).toMatchObject({ action: 'challenge', errors: [], warnings: ['domain_is_government'] });
    const none = await decisionFor({ government_domain: { mode: 'soft', action: 'none' } }, 'a@hmrc.gov.uk');
    expect(none).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });
  it('declares the government_domain step and checked type', () => {
    expect(government.steps).toEqual(['government_domain']);
    expect(government.checks.government_domain?.checkedType).toBe('government_domain');
    expect(government.facts.is_government_domain?.expose).toBe('flag');
  });
});

describe('government data files', () => {
  const entries = (file: string) =>
    readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
  it('suffixes.txt is sorted, unique, lower-case ASCII', () => {
    const lines = entries('suffixes.txt');
    expect(lines.length).toBeGreaterThan(200);
    expect(lines).toEqual([...new Set(lines)].sort());
    for (const line of lines) expect(line).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
  });
  it('domains.txt is unique, lower-case ASCII, and under no listed suffix', () => {
    const lines = entries('domains.txt');
    const suffixes = new Set(entries('suffixes.txt'));
    expect(lines).toEqual([...new Set(lines)]);
    for (const line of lines) {
      expect(line).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      const labels = line.split('.');
      for (let i = 1; i < labels.length; i++) expect(suffixes.has(labels.slice(i).join('.')), line).toBe(false);
    }
  });
});
