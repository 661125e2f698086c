// Typos on any domain, over HTTP with the default policy: what a sign-up form gets back for a mistyped
// top-level domain, a real look-alike TLD, upper case, surrounding spaces, IDN and the popular providers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let project: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'typo-default' });
});
afterAll(() => server.close());

function verify(email: string, extra: Record<string, unknown> = {}, on: CreatedProject = project): Promise<Reply> {
  return post(server.url, '/v1/public/verify', { email_address: email, show_results: true, ...extra }, bearer(on.keys.access_token));
}

interface Row {
  email: string;
  /** The address offered to the user; null when none is offered. */
  corrected: string | null;
  action: string;
  /** Error codes that must be present (others may be). */
  errors?: string[];
}

const TYPO = 'domain_typo_detected';

const rows: [string, Row][] = [
  // A top-level domain that does not exist, one edit from a common one: invalid_tld blocks, and the form gets the fix.
  ['swapped letters', { email: 'jane@acme.cmo', corrected: 'jane@acme.com', action: 'block', errors: ['invalid_tld'] }],
  ['n for m', { email: 'x@shop.con', corrected: 'x@shop.com', action: 'block', errors: ['invalid_tld'] }],
  ['.ogr', { email: 'jane@nonprofit.ogr', corrected: 'jane@nonprofit.org', action: 'block', errors: ['invalid_tld'] }],
  ['.nte', { email: 'jane@acme.nte', corrected: 'jane@acme.net', action: 'block', errors: ['invalid_tld'] }],
  ['a doubled letter in a two-label suffix', { email: 'jane@acme.co.ukk', corrected: 'jane@acme.co.uk', action: 'block', errors: ['invalid_tld'] }],
  ['a missing dot in a two-label suffix', { email: 'jane@acme.couk', corrected: 'jane@acme.co.uk', action: 'block', errors: ['invalid_tld'] }],
  ['a slip in the last label of a two-label suffix', { email: 'jane@shop.co.uj', corrected: 'jane@shop.co.uk', action: 'block' }],
  ['subdomains stay as typed', { email: 'jane@mail.acme.cmo', corrected: 'jane@mail.acme.com', action: 'block', errors: ['invalid_tld'] }],
  ['a doubled letter', { email: 'jane@acme.comm', corrected: 'jane@acme.com', action: 'block' }],
  ['a zero for an o', { email: 'jane@acme.c0m', corrected: 'jane@acme.com', action: 'block' }],
  ['.nt: the more used of the close suffixes', { email: 'jane@acme.nt', corrected: 'jane@acme.net', action: 'block' }],
  ['a hyphenated name', { email: 'jane@my-shop.ocm', corrected: 'jane@my-shop.com', action: 'block' }],
  // Real top-level domains one edit from a common one: never "corrected".
  ['.co is Colombia', { email: 'jane@acme.co', corrected: null, action: 'allow' }],
  ['.cm is Cameroon', { email: 'jane@acme.cm', corrected: null, action: 'allow' }],
  ['.om is Oman', { email: 'jane@acme.om', corrected: null, action: 'allow' }],
  ['.ne is Niger', { email: 'jane@acme.ne', corrected: null, action: 'allow' }],
  ['.net', { email: 'jane@acme.net', corrected: null, action: 'allow' }],
  ['.ca', { email: 'jane@acme.ca', corrected: null, action: 'allow' }],
  ['.con.au: the TLD is real, the slip is below it (a known miss)', { email: 'jane@acme.con.au', corrected: null, action: 'allow' }],
  // Not delegated, but nothing to offer.
  ['special-use .alt, one edit from .at', { email: 'jane@foo.alt', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['special-use .local', { email: 'jane@printer.local', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['retired .yu is never corrected to a live TLD', { email: 'jane@mail.yu', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['retired .tp, one edit from .jp', { email: 'jane@mail.tp', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['a one-letter TLD is too short to guess', { email: 'jane@acme.c', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['two edits from .com', { email: 'jane@acme.cmoo', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  ['a public suffix alone is not a correction', { email: 'jane@co.ukk', corrected: null, action: 'block', errors: ['invalid_tld'] }],
  // Upper case: the local part as typed, the domain in lower case.
  ['upper-case popular typo', { email: 'Jane.Doe@GMIAL.COM', corrected: 'Jane.Doe@gmail.com', action: 'challenge' }],
  ['upper-case TLD typo', { email: 'JANE@ACME.CMO', corrected: 'JANE@acme.com', action: 'block', errors: ['invalid_tld'] }],
  ['mixed case, two-label suffix', { email: 'Jane@Hotmial.Co.Uk', corrected: 'Jane@hotmail.co.uk', action: 'allow' }],
  // Surrounding spaces: refused as they are (invalid_address_format), the fix offered without them.
  ['spaces around a popular typo', { email: ' jane@gmial.com ', corrected: 'jane@gmail.com', action: 'block', errors: ['invalid_address_format'] }],
  ['a leading space and a TLD typo', { email: ' Jane@acme.cmo', corrected: 'Jane@acme.com', action: 'block', errors: ['invalid_address_format'] }],
  [
    'no-break spaces and upper case',
    { email: '\u00a0Jane@Outlok.COM\u00a0', corrected: 'Jane@outlook.com', action: 'block', errors: ['invalid_address_format'] },
  ],
  ['spaces around a correct address: nothing to correct', { email: ' jane@gmail.com ', corrected: null, action: 'block', errors: ['invalid_address_format'] }],
  ['spaces around an address broken otherwise', { email: ' jane doe@gmial.com ', corrected: null, action: 'block', errors: ['invalid_address_format'] }],
  ['spaces inside, not around', { email: 'jane @gmial.com', corrected: null, action: 'block', errors: ['invalid_address_format'] }],
  // Internationalised domains: the first labels keep their Unicode form.
  ['Unicode name, mistyped TLD', { email: 'jane@bücher.cmo', corrected: 'jane@bücher.com', action: 'block', errors: ['invalid_tld'] }],
  ['ACE name, mistyped TLD', { email: 'jane@xn--bcher-kva.cmo', corrected: 'jane@xn--bcher-kva.com', action: 'block', errors: ['invalid_tld'] }],
  ['a Unicode TLD that exists', { email: 'jane@пример.рф', corrected: null, action: 'allow' }],
  ['a Latin look-alike of a provider is not its typo', { email: 'jane@gmaïl.com', corrected: null, action: 'allow' }],
  // Popular providers: corrected to themselves never; their typos win over a TLD fix.
  [
    'popular typo with a mistyped TLD: the popular domain wins',
    { email: 'jane@gmial.cmo', corrected: 'jane@gmail.com', action: 'block', errors: ['invalid_tld'] },
  ],
  ['a provider with a mistyped two-label suffix', { email: 'jane@hotmail.co.ukk', corrected: 'jane@hotmail.co.uk', action: 'block' }],
  ['a provider with a mistyped TLD', { email: 'jane@yahoo.cmo', corrected: 'jane@yahoo.com', action: 'block' }],
  ['gmail.com', { email: 'jane@gmail.com', corrected: null, action: 'allow' }],
  ['aol.com', { email: 'jane@aol.com', corrected: null, action: 'allow' }],
  ['gmx.de', { email: 'jane@gmx.de', corrected: null, action: 'allow' }],
  ['web.de', { email: 'jane@web.de', corrected: null, action: 'allow' }],
  ['me.com', { email: 'jane@me.com', corrected: null, action: 'allow' }],
  ['aim.com', { email: 'jane@aim.com', corrected: null, action: 'allow' }],
  // Short provider names: one keyboard slip, corrected when exactly one provider fits (a warning, action allow).
  ['a missed key: liv.com', { email: 'jane@liv.com', corrected: 'jane@live.com', action: 'allow' }],
  // aoll.com is also a typo-squat on the disposable lists: challenged with the correction, as gmial.com is.
  ['a doubled key: aoll.com', { email: 'Jane@aoll.com', corrected: 'Jane@aol.com', action: 'challenge' }],
  ['a neighbouring key: gnx.de', { email: 'jane@gnx.de', corrected: 'jane@gmx.de', action: 'allow' }],
  ['swapped keys: mial.ru', { email: 'jane@mial.ru', corrected: 'jane@mail.ru', action: 'allow' }],
  ['a digit doubled: 1633.com', { email: 'jane@1633.com', corrected: 'jane@163.com', action: 'allow' }],
  ['ambiguous between 163.com and 126.com: 136.com', { email: 'jane@136.com', corrected: null, action: 'allow' }],
  ['not a slip (g is far from m): aig.com', { email: 'jane@aig.com', corrected: null, action: 'allow' }],
  ['a two-letter name is left alone: ao.com', { email: 'jane@ao.com', corrected: null, action: 'allow' }],
  ['a known free provider one slip from aol.com: love.com', { email: 'jane@love.com', corrected: null, action: 'allow' }],
  ['a national domain, not a slip: hotmail.dk', { email: 'jane@hotmail.dk', corrected: null, action: 'allow' }],
  ['mail.com is real', { email: 'jane@mail.com', corrected: null, action: 'allow' }],
];

describe('typo suggestions under the default policy', () => {
  it.each(rows)('%s: %o', async (_name, row) => {
    const res = await verify(row.email);
    expect(res.status).toBe(200);
    const body = res.body as { action: string; errors: string[]; warnings: string[]; corrected_email?: string };
    expect(body.action).toBe(row.action);
    if (row.corrected === null) {
      expect(body).not.toHaveProperty('corrected_email');
      expect(body.warnings).not.toContain(TYPO);
    } else {
      expect(body.corrected_email).toBe(row.corrected);
      expect(body.warnings).toContain(TYPO);
    }
    for (const code of row.errors ?? []) expect(body.errors).toContain(code);
  });
});

describe('a blocked typo still carries its fix', () => {
  it('hard mode: domain_typo_detected next to invalid_tld, and the fix only with show_results', async () => {
    const hard = await server.createProject({
      name: 'typo-hard',
      policyYaml: 'version: "1.0"\nchecks:\n  tld: { mode: hard }\n  typo_detection: { mode: hard }\n',
    });
    expect((await verify('jane@acme.cmo', {}, hard)).body).toEqual({
      action: 'block',
      errors: ['invalid_tld', TYPO],
      warnings: [],
      corrected_email: 'jane@acme.com',
      checked_types: ['address_format', 'typo_detection'],
      analyzed_data: {},
    });
    expect((await verify('jane@acme.cmo', { show_results: false }, hard)).body).toEqual({ action: 'block' });
  });

  it('intelligence: without_typo_mismatch and has_typo_mismatch for a mistyped TLD', async () => {
    const res = await post(server.url, '/v1/intelligence', { email_address: 'Jane@Acme.CMO' }, apiKey(project.keys.private_key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: {
        normalized: { without_typo_mismatch: 'Jane@acme.com' },
        details: { domain: { has_valid_tld: false, has_typo_mismatch: true } },
      },
    });
  });
});
