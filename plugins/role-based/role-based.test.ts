import { readFileSync } from 'node:fs';
import { allLocales } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import roleBased from './index.js';

const role = (name: string) => ({ is_role_based_domain: true, role_name: name });
const person = { is_role_based_domain: false, role_name: null };

testPlugin(roleBased, [
  { email: 'noreply@example.com', facts: role('noreply'), fires: ['role_based_address'] },
  { email: 'no-reply@example.com', facts: role('noreply'), fires: ['role_based_address'] },
  { email: 'no_reply@example.com', facts: role('noreply'), fires: ['role_based_address'] },
  { name: 'capitals, dot and plus tag', email: 'No.Reply+x@example.com', facts: role('noreply'), fires: ['role_based_address'] },
  { email: 'do-not-reply@example.com', facts: role('donotreply'), fires: ['role_based_address'] },
  { email: 'info@example.com', facts: role('info'), fires: ['role_based_address'] },
  { email: 'INFO@example.com', facts: role('info'), fires: ['role_based_address'] },
  { email: 'support@example.com', facts: role('support'), fires: ['role_based_address'] },
  { email: 'admin@example.com', facts: role('admin'), fires: ['role_based_address'] },
  { email: 'postmaster@example.com', facts: role('postmaster'), fires: ['role_based_address'] },
  { email: 'abuse@example.com', facts: role('abuse'), fires: ['role_based_address'] },
  { email: 'sales@example.com', facts: role('sales'), fires: ['role_based_address'] },
  // Issue 51: guest and staging accounts, TLS administration, legal and data-protection mailboxes, other languages.
  { email: 'guest@example.com', facts: role('guest'), fires: ['role_based_address'] },
  { email: 'staging@example.com', facts: role('staging'), fires: ['role_based_address'] },
  { email: 'ssl-admin@example.com', facts: role('ssladmin'), fires: ['role_based_address'] },
  { email: 'TLS@example.com', facts: role('tls'), fires: ['role_based_address'] },
  { email: 'datenschutz@example.de', facts: role('datenschutz'), fires: ['role_based_address'] },
  { email: 'terms@example.com', facts: role('terms'), fires: ['role_based_address'] },
  { email: 'boletins@example.com.br', facts: role('boletins'), fires: ['role_based_address'] },
  { email: 'conserje@example.es', facts: role('conserje'), fires: ['role_based_address'] },
  { email: 'webmaster@example.com', facts: role('webmaster'), fires: ['role_based_address'] },
  { name: 'hello is a shared inbox', email: 'hello@example.com', facts: role('hello'), fires: ['role_based_address'] },
  { name: 'RFC 2142: hostmaster', email: 'hostmaster@example.com', facts: role('hostmaster'), fires: ['role_based_address'] },
  { name: 'RFC 2142: noc', email: 'noc@example.com', facts: role('noc'), fires: ['role_based_address'] },
  { name: 'RFC 2142: uucp', email: 'uucp@example.com', facts: role('uucp'), fires: ['role_based_address'] },
  { email: 'mailer-daemon@example.com', facts: role('mailerdaemon'), fires: ['role_based_address'] },
  { name: 'plus tag on a role', email: 'support+tickets@example.com', facts: role('support'), fires: ['role_based_address'] },
  { name: 'separators inside a role', email: 'customer.service@example.com', facts: role('customerservice'), fires: ['role_based_address'] },
  { email: 'sales-team@example.com', facts: role('salesteam'), fires: ['role_based_address'] },
  { name: 'kept two-letter role', email: 'hr@example.com', facts: role('hr'), fires: ['role_based_address'] },
  { name: 'a listed numbered variant', email: 'sales1@example.com', facts: role('sales1'), fires: ['role_based_address'] },
  { name: 'quoted local part', email: '"info"@example.com', facts: role('info'), fires: ['role_based_address'] },
  { name: 'the domain does not matter', email: 'info@gmail.com', facts: role('info'), fires: ['role_based_address'] },
  // Issue 11 review (data/SOURCE.md): team, mail, test, testing and users stay roles; family, home and user are people's own inboxes.
  { name: 'team is a group inbox', email: 'team@example.com', facts: role('team'), fires: ['role_based_address'] },
  { name: "mail is a domain's general inbox", email: 'mail@example.com', facts: role('mail'), fires: ['role_based_address'] },
  { name: 'test is no person', email: 'test@example.com', facts: role('test'), fires: ['role_based_address'] },
  { name: 'testing is no person', email: 'testing@example.com', facts: role('testing'), fires: ['role_based_address'] },
  { name: 'users is a list', email: 'users@example.com', facts: role('users'), fires: ['role_based_address'] },
  { name: 'user is the owner of a personal domain', email: 'user@smith.example', facts: person, fires: [] },
  { name: "family is a household's inbox", email: 'family@smiths.example', facts: person, fires: [] },
  { name: "home is a household's inbox", email: 'home@smiths.example', facts: person, fires: [] },
  // Issue 16: no-reply in other languages, admin and system variants, protocol and system mailboxes.
  { name: 'German no-reply', email: 'keine-antwort@example.de', facts: role('keineantwort'), fires: ['role_based_address'] },
  { email: 'nicht.antworten@example.de', facts: role('nichtantworten'), fires: ['role_based_address'] },
  { name: 'French no-reply', email: 'ne-pas-repondre@example.fr', facts: role('nepasrepondre'), fires: ['role_based_address'] },
  { name: 'Spanish no-reply', email: 'no_responder@example.es', facts: role('noresponder'), fires: ['role_based_address'] },
  { name: 'Portuguese no-reply', email: 'nao-responda@example.com.br', facts: role('naoresponda'), fires: ['role_based_address'] },
  { name: 'Italian no-reply', email: 'non-rispondere@example.it', facts: role('nonrispondere'), fires: ['role_based_address'] },
  { name: 'Dutch no-reply', email: 'niet-beantwoorden@example.nl', facts: role('nietbeantwoorden'), fires: ['role_based_address'] },
  { name: 'Polish no-reply', email: 'nie-odpowiadaj@example.pl', facts: role('nieodpowiadaj'), fires: ['role_based_address'] },
  { name: 'Swedish no-reply', email: 'svara-inte@example.se', facts: role('svarainte'), fires: ['role_based_address'] },
  { name: 'Finnish no-reply', email: 'ala-vastaa@example.fi', facts: role('alavastaa'), fires: ['role_based_address'] },
  { email: 'do-not-respond@example.com', facts: role('donotrespond'), fires: ['role_based_address'] },
  { name: 'admin variant', email: 'sysadmin@example.com', facts: role('sysadmin'), fires: ['role_based_address'] },
  { email: 'administrator@example.com', facts: role('administrator'), fires: ['role_based_address'] },
  { name: 'French admin', email: 'administrateur@example.fr', facts: role('administrateur'), fires: ['role_based_address'] },
  { name: 'Spanish admin', email: 'administrador@example.es', facts: role('administrador'), fires: ['role_based_address'] },
  { email: 'system@example.com', facts: role('system'), fires: ['role_based_address'] },
  { email: 'listmaster@example.com', facts: role('listmaster'), fires: ['role_based_address'] },
  { email: 'majordomo@example.com', facts: role('majordomo'), fires: ['role_based_address'] },
  { email: 'nobody@example.com', facts: role('nobody'), fires: ['role_based_address'] },
  { email: 'www-data@example.com', facts: role('wwwdata'), fires: ['role_based_address'] },
  { email: 'dmarc-reports@example.com', facts: role('dmarcreports'), fires: ['role_based_address'] },
  { name: 'RFC 2142: ftp', email: 'ftp@example.com', facts: role('ftp'), fires: ['role_based_address'] },
  { name: 'RFC 2142: www', email: 'www@example.com', facts: role('www'), fires: ['role_based_address'] },
  // Given names that the package lists as roles were removed (issue 16): people, in some language.
  { name: 'Per is a Scandinavian given name', email: 'per@example.se', facts: person, fires: [] },
  { name: 'Job is a Dutch given name', email: 'job@example.nl', facts: person, fires: [] },
  { name: 'Dev is an Indian given name', email: 'dev@example.in', facts: person, fires: [] },
  // People and near misses: the whole compared local part must be a role.
  { email: 'john.smith@example.com', facts: person, fires: [] },
  { email: 'jane@example.com', facts: person, fires: [] },
  { name: 'role as a prefix only', email: 'infogirl@example.com', facts: person, fires: [] },
  { name: 'role plus digits is not a role', email: 'admin123@example.com', facts: person, fires: [] },
  { name: 'role as a suffix only', email: 'johnsupport@example.com', facts: person, fires: [] },
  { name: 'role after the plus tag does not count', email: 'john+support@example.com', facts: person, fires: [] },
  { name: 'given name removed from the list', email: 'paris@example.com', facts: person, fires: [] },
  { name: 'initials are not roles', email: 'md@example.com', facts: person, fires: [] },
  { name: 'a year is not a role', email: '2024@example.com', facts: person, fires: [] },
  { name: 'keyboard string is not a role', email: 'asdf@example.com', facts: person, fires: [] },
  { name: 'plus tag only', email: '+info@example.com', facts: person, fires: [] },
  { name: 'empty local part', email: '@example.com', facts: person, fires: [] },
  { name: 'no @: unknown', email: 'plainaddress', facts: { is_role_based_domain: null, role_name: null }, fires: [] },
]);

describe('role-based check', () => {
  it('fires naming local_is_role_based (hard: an error; soft: a warning)', async () => {
    const decision = await decisionFor({ role_based_address: { mode: 'hard' } }, 'no-reply@example.com');
    expect(decision.fired.map((v) => v.name)).toEqual(['role_based_address']);
    expect(decision).toMatchObject({ action: 'block', errors: ['local_is_role_based'], warnings: [] });
    const soft = await decisionFor({ role_based_address: { mode: 'soft', action: 'allow_with_review' } }, 'info@example.com');
    expect(soft).toMatchObject({ action: 'allow_with_review', errors: [], warnings: ['local_is_role_based'] });
  });
  it('declares the role_based_address step and checked type', () => {
    expect(roleBased.steps).toEqual(['role_based_address']);
    expect(roleBased.checks.role_based_address?.checkedType).toBe('role_based_address');
    expect(roleBased.facts.is_role_based_domain?.expose).toBe('flag');
  });
});

describe('role-based data', () => {
  it('roles.txt is sorted, unique, in compared form, and holds every RFC 2142 name', () => {
    const lines = readFileSync(new URL('./data/roles.txt', import.meta.url), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toEqual([...new Set(lines)].sort());
    for (const line of lines) expect(line).toMatch(/^[a-z0-9]{2,}$/);
    // The RFC 2142 names as data/SOURCE.md lists them (the build's own copy is what this checks).
    const source = readFileSync(new URL('./data/SOURCE.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const rfc2142 = (/- \*\*RFC 2142\*\* \([^)]*\): ([^.]+)\./.exec(source)?.[1] ?? '').split(', ');
    expect(rfc2142).toHaveLength(15);
    for (const name of rfc2142) expect(lines).toContain(name);
  });
});

describe('first names are never roles', () => {
  it('flags no given name of any @faker-js/faker locale (77 locales, some 24,600 names, compared as the plugin compares)', () => {
    const roles = new Set(
      readFileSync(new URL('./data/roles.txt', import.meta.url), 'utf8')
        .trimEnd()
        .split('\n'),
    );
    const compared = (name: string) => name.toLowerCase().replace(/[._-]/g, '');
    const names = new Set<string>();
    for (const locale of Object.values(allLocales)) {
      const first = locale.person?.first_name;
      for (const name of [...(first?.female ?? []), ...(first?.male ?? []), ...(first?.generic ?? [])]) names.add(compared(name));
    }
    expect(names.size).toBeGreaterThan(20_000);
    expect([...names].filter((name) => roles.has(name))).toEqual([]);
  });
});
