// Builds roles.txt: role local parts from role-based-email-addresses plus the mailbox names of RFC 2142,
// reviewed (below), each in its compared form: lower case, without ".", "-" and "_".
// Run from the repository root: node plugins/role-based/data/build.mjs
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const packaged = require('role-based-email-addresses');

/** RFC 2142, sections 3-5: business, network operations and service mailboxes. */
const RFC_2142 = [
  'info',
  'marketing',
  'sales',
  'support',
  'abuse',
  'noc',
  'security',
  'postmaster',
  'hostmaster',
  'usenet',
  'news',
  'webmaster',
  'www',
  'uucp',
  'ftp',
];
/** Common role mailboxes the package lacks. */
const ADDED = ['bounce', 'bounces', 'dmarc', 'mailer-daemon', 'no-reply', 'root'];
/** Issue 16: "do not reply" in the major languages, as senders spell them (separators dropped when compared). */
const NO_REPLY = [
  ...['do-not-reply', 'donotreply', 'dont-reply', 'no-replies', 'no-response', 'no-respond', 'do-not-respond', 'no-answer', 'not-reply', 'reply-not'],
  ...['keine-antwort', 'nicht-antworten', 'bitte-nicht-antworten', 'antworten-nicht-moeglich'], // German
  ...['ne-pas-repondre', 'nepasrepondre', 'pas-de-reponse', 'ne-pas-repondre-svp', 'sans-reponse'], // French
  ...['no-responder', 'no-responda', 'no-contestar', 'no-conteste', 'sin-respuesta'], // Spanish
  ...['nao-responda', 'nao-responder', 'naoresponda', 'sem-resposta', 'nao-respondo'], // Portuguese
  ...['non-rispondere', 'nonrispondere', 'no-risposta'], // Italian
  ...['niet-beantwoorden', 'niet-antwoorden', 'geen-antwoord', 'geen-reply'], // Dutch
  ...['nie-odpowiadaj', 'brak-odpowiedzi', 'nieodpowiadac'], // Polish
  ...['svara-inte', 'svarainte', 'ej-svar', 'ikke-svar', 'ikkesvar', 'svar-ikke', 'ikke-besvar', 'ala-vastaa', 'alavastaa', 'ei-vastausta'], // Nordic
  ...['neodpovidat', 'neodpovidejte', 'ne-valaszolj', 'nevalaszoljon', 'yanitlamayin', 'cevaplamayin', 'ne-otvechat', 'neotvechayte'], // Czech, Hungarian, Turkish, Russian
];
/** Issue 16: admin and system mailboxes, in English and the major languages. */
const ADMIN_SYSTEM = [
  ...['administrator', 'administrators', 'admins', 'sysadmin', 'sysadmins', 'sysadm', 'sysop', 'superuser', 'system', 'systemadmin', 'systemadministrator'],
  ...[
    'netadmin',
    'webadmin',
    'domainadmin',
    'serveradmin',
    'hostadmin',
    'itadmin',
    'mailadmin',
    'dbadmin',
    'siteadmin',
    'admin-team',
    'it-support',
    'servicedesk',
  ],
  ...[
    'administrador',
    'administradores',
    'administrateur',
    'administrateurs',
    'amministratore',
    'amministrazione',
    'beheerder',
    'beheer',
    'verwaltung',
    'systemverwalter',
  ],
];
/** Issue 16: mailboxes of protocols and system accounts (RFC 2142 has more in RFC_2142; mail list managers, Unix daemons). */
const PROTOCOL = [
  ...['mailerdaemon', 'mailer', 'daemon', 'nobody', 'operator', 'listmaster', 'list-request', 'majordomo', 'listserv', 'mailman', 'newsmaster', 'ftpmaster'],
  ...['smtp', 'imap', 'pop', 'pop3', 'dns', 'ntp', 'ldap', 'nntp', 'www-data', 'wwwdata', 'apache', 'nginx', 'httpd', 'cron', 'logwatch'],
  ...['dmarc-reports', 'dmarcreports', 'dkim', 'tls-reports', 'tlsrpt', 'abuse-reports', 'phishing', 'spam', 'cert', 'csirt', 'psirt'],
];
/**
 * Issue 51 (2026-12-03, curated; the misses of reserved-email-addresses-list 2.0.16 showed the groups, and
 * each group is filled out beyond them): plurals of listed roles, guest and test-environment accounts,
 * certificate and TLS administration (the CA/Browser Forum's domain-validation mailboxes are listed already),
 * legal and data-protection mailboxes, bulletins and front-desk or billing mailboxes in other languages.
 */
const ISSUE_51 = [
  ...['clients', 'guest', 'guests', 'visitor', 'visitors', 'noreplys'],
  ...['stage', 'staging', 'uat', 'preprod', 'sandbox'],
  ...['ssl', 'tls', 'ssladmin', 'ssladministrator', 'sysadministrator', 'certs', 'certificates', 'pki'],
  ...['license', 'licenses', 'policy', 'policies', 'terms', 'tos', 'dpo', 'gdpr', 'dataprotection', 'datenschutz', 'impressum'],
  ...['boletin', 'boletines', 'boletim', 'boletins'], // Spanish, Portuguese bulletins
  ...['conserje', 'conserjeria', 'rezeption', 'empfang', 'facturation', 'rechnung', 'rechnungen', 'ufficio'],
];
/**
 * Entries that are not roles, or that name people as often as roles: given names and surnames
 * (an address like paris@ or sydney@ is usually a person), keyboard test strings and bare numbers
 * (the fraud-pattern and local-part checks judge those), and two-letter entries other than hi, hq, hr, it,
 * pr and qa (two letters are as often a person's initials).
 */
const REMOVED = new Set([
  ...['alexa', 'denver', 'gardner', 'india', 'paris', 'sydney', 'aaa', 'abc', 'asd', 'asdasd', 'asdf'],
  // Issue 11 review (2026-11-24): a household's or one owner's own mailbox, not an organisation's function
  // or group: family@smiths.example and home@ are the family's inbox, user@ the sole user of a personal
  // domain. Kept as roles: users (a list), team, mail (a domain's general inbox), test and testing (no person).
  ...['family', 'home', 'user'],
  // Issue 16: given names in @faker-js/faker's locales (role-based.test.ts checks every one): job and sem (Dutch, Czech),
  // per (Danish, Swedish), dev (Indian), france and alpha (French, Senegalese), alla (Russian), server (Turkish),
  // general (an English given name there). A role that is also a given name is more often a person.
  ...['job', 'sem', 'per', 'dev', 'france', 'alpha', 'alla', 'server', 'general'],
]);
const TWO_LETTER_ROLES = new Set(['hi', 'hq', 'hr', 'it', 'pr', 'qa']);

/** The compared form; the plugin applies the same after cutting the plus tag. */
const key = (name) => name.toLowerCase().replace(/[._-]/g, '');

const roles = new Set();
const dropped = [];
const packagedKeys = new Set(packaged.map(key));
for (const name of [...packaged, ...RFC_2142, ...ADDED, ...NO_REPLY, ...ADMIN_SYSTEM, ...PROTOCOL, ...ISSUE_51]) {
  const k = key(name);
  const keep = !REMOVED.has(k) && !/^[0-9]+$/.test(k) && (k.length > 2 || TWO_LETTER_ROLES.has(k));
  if (keep) roles.add(k);
  else dropped.push(name);
}
for (const name of RFC_2142) if (!roles.has(key(name))) throw new Error(`RFC 2142 name ${name} was dropped`);
const sorted = [...roles].sort();
writeFileSync(join(here, 'roles.txt'), `${sorted.join('\n')}\n`);
const covered = [...packagedKeys].filter((k) => roles.has(k)).length;
console.log(
  `roles.txt: ${sorted.length} roles (${packaged.length} packaged names, ${packagedKeys.size} compared forms, ${covered} of them kept); dropped: ${[...new Set(dropped)].join(' ')}`,
);
