// Builds providers.json: free (consumer mailbox) provider key -> {group, name, domains}.
// Run from the repository root: node plugins/free-provider/data/build.mjs
// Sources (devDependencies): @mikkelscheike/email-provider-links (MIT) for the well-known providers,
// freemail's free.txt (ISC) for breadth; every domain listed as disposable by freemail's disposable.txt
// or by disposable-email-domains-js (CC0), or under such a domain, is left out (unless the disposable plugin's
// never-disposable.txt vets it). The long tail of
// free.txt is keyed by the reviewed tables in long-tail.mjs, the rest by top-level domain (other_de).
// Regional ISPs and mailbox providers (regional.mjs, issue 16) add domains with their evidence, the
// locales' free-mail lists of @faker-js/faker (MIT) among them, and the providers' documented subdomains.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { allLocales } from '@faker-js/faker';
import { parse } from 'tldts';
import { JOIN, LONG_TAIL } from './long-tail.mjs';
import { CONFIRMED_CATCH_ALL, FAKER_KEYS, FAKER_SKIPPED, REGIONAL, REGIONAL_CATCH_ALL, REGIONAL_JOIN, SUBDOMAINS } from './regional.mjs';

const require = createRequire(import.meta.url);
const OUT = new URL('./providers.json', import.meta.url);

const lines = (file) =>
  readFileSync(require.resolve(file), 'utf8')
    .split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter((line) => line !== '' && !line.startsWith('#'));

const packageProviders = require('@mikkelscheike/email-provider-links/dist/providers/emailproviders.json').providers;
const freeTxt = lines('freemail/data/free.txt');
const freemailBlacklist = lines('freemail/data/blacklist.txt'); // suffix patterns such as ".zzn.com"
// What the disposable plugin has vetted as never disposable (big providers, national portals such as 21cn.com
// and sify.com that the upstream list carries) is not disposable here either: such a portal is a free provider.
const neverDisposable = new Set(
  readFileSync(new URL('../../disposable/data/never-disposable.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter((line) => line !== '' && !line.startsWith('#')),
);
const disposable = new Set(
  [
    ...lines('freemail/data/disposable.txt'),
    ...require('disposable-email-domains-js/dist/dict/disposable_email_blocklist.json').map((d) => d.toLowerCase()),
  ].filter((d) => !neverDisposable.has(d)),
);

// Privacy relays forward to a real mailbox and hide it: neither free providers nor disposable.
const RELAYS = new Set([
  '33mail.com',
  '8alias.com',
  '8shield.net',
  'addy.io',
  'aleeas.com',
  'anonaddy.com',
  'anonaddy.me',
  'dralias.com',
  'duck.com',
  'e4ward.com',
  'mozmail.com',
  'mxrecord.io',
  'mxrecord.mx',
  'passinbox.com',
  'passmail.com',
  'passmail.net',
  'privaterelay.appleid.com',
  'relay.firefox.com',
  'silomails.com',
  'simplelogin.co',
  'simplelogin.com',
  'simplelogin.fr',
  'simplelogin.io',
  'slmail.me',
  'slmails.com',
  'spamgourmet.com',
  'anonymous.to',
]);

// Domains the provider package lists that are a company's own or a hosting product's domain, not
// addresses a consumer mailbox service hands out.
const NOT_MAILBOX = new Set([
  'alibaba.com',
  'taobao.com',
  'tmall.com',
  'godaddy.com',
  'secureserver.net',
  'hostgator.com',
  'hostinger.com',
  'iij.ad.jp',
  'ionos.com',
  'ionos.de',
  '1and1.com',
  'migadu.com',
  'namecheap.com',
  'privateemail.com',
  'neo.space',
  'siteground.com',
  'titan.email',
  'bt.com',
  'telekom.de',
  'comcast.com',
  'cox.com',
  'charter.com',
]);

// Dynamic-DNS, DNS-hosting and registrar domains: their users get host names or domains, not
// mailboxes. The dynamic-DNS firms are those of the Public Suffix List's private section (its
// headers name them: DynDNS.com, No-IP.com, DuckDNS, Dynu.com); the others were reviewed one by one
// (data/SOURCE.md, "Review of 2026-11-24"). A domain that is itself a private public suffix is
// refused by rule as well (rejection below).
const NOT_MAILBOX_DNS = new Set([
  'dyndns.org', // DynDNS.com's dynamic-DNS zone (PSL private section)
  'dyndns.com',
  'dyn.com',
  'noip.com', // No-IP.com (PSL private section: ddns.net, hopto.org, no-ip.org, zapto.org, ...)
  'no-ip.com',
  'duckdns.org', // DuckDNS (PSL private section)
  'dynu.com', // Dynu.com (PSL private section: dynu.net, ddnsfree.com, ...)
  'afraid.org', // FreeDNS (freedns.afraid.org): dynamic DNS and shared subdomains
  'dnsmadeeasy.com', // DNS Made Easy: DNS hosting and dynamic DNS (its terms of service)
  'mydomain.com', // the stock example domain of registrar and hosting manuals: placeholder addresses
  'name.com', // Name.com, a domain registrar (its registration agreement)
]);

// free.txt entries one edit from a common domain that are look-alikes, not that provider (`yahoo.co`,
// `hitmail.com`): listing them would stop the typo check from correcting them. Found by comparing
// the rare group with the common group (Damerau-Levenshtein distance 1) and reviewing each.
const TYPO_SHAPED = new Set([
  'yahoo.co',
  'yaho.com',
  'vahoo.com',
  'gmail.com.br',
  'gmail.sk',
  'gmail.ru',
  'qmail.com',
  'uymail.com',
  'hitmail.com',
  'comast.com',
  'comast.net',
  'lvie.com.sg',
  'uole.com.ve',
]);

// Names that say "throwaway" even when no disposable list has the domain yet.
const THROWAWAY_WORDS = [
  'temp',
  'trash',
  'spam',
  'throwaway',
  'disposable',
  'fake',
  'minutesmail',
  'guerrilla',
  'yopmail',
  'mailinator',
  'discard',
  'junk',
  'jetable',
  'wegwerf',
  'expire',
  'shitaway',
];

// Curated providers: key -> [group, name, package ids, brand labels of free.txt domains, domain overrides].
// A brand label attaches free.txt domains whose registrable label equals it (`hotmail.be` -> outlook).
const CURATED = {
  gmail: ['common', 'Gmail', ['g']],
  outlook: ['common', 'Outlook.com (Hotmail, Live, MSN)', ['msol', 'livejp'], ['hotmail', 'outlook', 'live', 'msn', 'windowslive']],
  yahoo: ['common', 'Yahoo Mail', ['y'], ['yahoo'], ['y7mail.com']],
  yahoo_jp: ['common', 'Yahoo! JAPAN Mail', [], [], ['yahoo.co.jp', 'yahoo.jp', 'yahoo.ne.jp']],
  icloud: ['common', 'iCloud Mail', ['icloud']],
  aol: ['common', 'AOL Mail', ['aol'], ['aol']],
  proton: ['common', 'Proton Mail', ['proton']],
  gmx: ['common', 'GMX', ['gmx'], ['gmx'], ['gmx.com', 'gmx.us', 'gmx.co.uk', 'gmx.fr', 'gmx.es', 'gmx.it', 'gmx.org']],
  gmx_de: ['common', 'GMX (Germany, Austria, Switzerland)', [], [], ['gmx.de', 'gmx.net', 'gmx.at', 'gmx.ch', 'gmx.li']],
  web_de: ['common', 'WEB.DE', ['webde']],
  mail_ru: ['common', 'Mail.ru', ['ru']],
  yandex: ['common', 'Yandex Mail', ['yandex'], ['yandex'], ['ya.ru', 'yandex.by', 'yandex.kz', 'yandex.ua']],
  zoho: ['common', 'Zoho Mail', ['zoho', 'zohoeu']],
  qq: ['common', 'QQ Mail', ['qq']],
  netease: ['common', 'NetEase Mail (163, 126, Yeah)', ['neteas']],
  naver: ['common', 'Naver Mail', ['naver']],
  daum: ['common', 'Daum Mail (Hanmail)', ['daum', 'han']],
  mail_com: ['common', 'Mail.com', ['com']],
  t_online: ['common', 'T-Online (Telekom)', ['tonlin', 'teleko']],
  orange: ['common', 'Orange', ['orange']],
  free_fr: ['common', 'Free', ['freefr']],
  libero: ['common', 'Libero Mail', ['libero']],
  comcast: ['common', 'Comcast Xfinity', ['comcas']],
  att: ['common', 'AT&T Mail', ['att'], [], ['bellsouth.net']],
  verizon: ['common', 'Verizon', ['verizo']],
  rediffmail: ['common', 'Rediffmail', ['rediff']],
  sina: ['common', 'Sina Mail', ['sina']],
  seznam: ['common', 'Seznam.cz', ['seznam']],
  wp_pl: ['common', 'Wirtualna Polska Poczta', ['wppl']],
  onet: ['common', 'Onet Poczta', ['onet'], ['onet']],
  interia: ['common', 'Interia Poczta', ['interi']],
  rambler: ['common', 'Rambler Mail', ['ramble']],
  ukr_net: ['common', 'ukr.net', ['ukrnet']],
  uol: ['common', 'UOL Mail', ['uol'], ['uol']],
  bol: ['common', 'BOL Mail', ['bol']],
  btinternet: ['common', 'BT Mail', ['bt']],
  sky: ['common', 'Sky Mail', ['sky']],
  bigpond: ['common', 'Telstra BigPond', ['bigpond'], ['bigpond']],
  laposte: ['common', 'La Poste Mail', ['lapost']],
  sfr: ['common', 'SFR Mail', ['sfr']],
  virgilio: ['common', 'Virgilio Mail (TIM)', ['virgil']],
  spectrum: ['common', 'Spectrum (Charter, Time Warner Cable, Road Runner)', ['charter']],
  cox: ['common', 'Cox Email', ['cox']],
  aliyun: ['rare', 'Aliyun Mail', ['alibab']],
  abv: ['rare', 'ABV.bg', ['abvbg']],
  aamra: ['rare', 'Aamra Mail', ['aamra']],
  autistici: ['rare', 'Autistici/Inventati', ['autistici']],
  bbox: ['rare', 'Bouygues Telecom Mail', ['bbox']],
  bdmail: ['rare', 'BD Mail', ['bd']],
  bell: ['rare', 'Bell (Sympatico)', ['bell']],
  mail_bg: ['rare', 'Mail.bg', ['bg']],
  biglobe: ['rare', 'BIGLOBE', ['biglob']],
  bluewin: ['rare', 'Bluewin (Swisscom)', ['bluewi']],
  bsnl: ['rare', 'BSNL Mail', ['bsnl']],
  centrum: ['rare', 'Centrum Mail', ['centru']],
  centurylink: ['rare', 'CenturyLink Email', ['centurylink']],
  countermail: ['rare', 'CounterMail', ['counte']],
  disroot: ['rare', 'Disroot', ['disroot']],
  earthlink: ['rare', 'EarthLink', ['earthlink']],
  eircom: ['rare', 'Eircom Mail', ['eircom']],
  fastmail: ['rare', 'Fastmail', ['fast'], ['fastmail']],
  mailfence: ['rare', 'Mailfence', ['fence']],
  freemail_hu: ['rare', 'Freemail (Hungary)', ['freemailhu']],
  freenet: ['rare', 'freenet Mail', ['freenet']],
  frontier: ['rare', 'Frontier Mail', ['frontier']],
  globo: ['rare', 'Globo Mail', ['globo']],
  hey: ['rare', 'HEY', ['hey']],
  hushmail: ['rare', 'Hushmail', ['hush']],
  indiatimes: ['rare', 'Indiatimes Mail', ['indiat']],
  juno: ['rare', 'Juno', ['juno']],
  kolabnow: ['rare', 'Kolab Now', ['kolabn']],
  kpn: ['rare', 'KPN Mail', ['kpn']],
  link3: ['rare', 'Link3 Mail', ['link3']],
  lycos: ['rare', 'Lycos Mail', ['lycos'], ['lycos']],
  excite: ['rare', 'Excite Mail', [], ['excite']],
  mailbox_org: ['rare', 'mailbox.org', ['mailboxorg']],
  movistar: ['rare', 'Movistar Mail', ['movist']],
  mtnonline: ['rare', 'MTN Mail', ['mtn']],
  nate: ['rare', 'Nate Mail', ['nat']],
  netzero: ['rare', 'NetZero', ['netzero']],
  nifty: ['rare', '@nifty', ['nifty']],
  numericable: ['rare', 'Numericable Mail', ['numericable']],
  ocn: ['rare', 'OCN', ['ocn']],
  oi: ['rare', 'Oi Mail', ['oi']],
  optimum: ['rare', 'Optimum', ['optimum']],
  optusnet: ['rare', 'Optus', ['optus']],
  planet_nl: ['rare', 'Planet Internet', ['planet']],
  plusnet: ['rare', 'Plusnet', ['plusnet']],
  posteo: ['rare', 'Posteo', ['posteo']],
  privatemail: ['rare', 'PrivateMail', ['privatemail']],
  rakuten: ['rare', 'Rakuten Mail', ['rakute']],
  rogers: ['rare', 'Rogers', ['rogers']],
  runbox: ['rare', 'Runbox', ['runbox']],
  shaw: ['rare', 'Shaw', ['shaw']],
  sify: ['rare', 'Sify Mail', ['sify']],
  skynet_be: ['rare', 'Proximus (Skynet)', ['skynet']],
  startmail: ['rare', 'StartMail', ['startmail']],
  talktalk: ['rare', 'TalkTalk Mail', ['talktalk']],
  telenet: ['rare', 'Telenet Mail', ['telene']],
  telkom_za: ['rare', 'Telkom Mail', ['telkom']],
  telus: ['rare', 'Telus', ['telus']],
  terra: ['rare', 'Terra Mail', ['terra'], ['terra']],
  tiscali: ['rare', 'Tiscali Mail', ['tiscal'], ['tiscali']],
  tuta: ['rare', 'Tuta (Tutanota)', ['tutano']],
  videotron: ['rare', 'Videotron', ['videotron']],
  virginmedia: ['rare', 'Virgin Media Mail', ['virginmedia']],
  vodacom: ['rare', 'Vodacom Mail', ['vodaco']],
  vodafone_de: ['rare', 'Vodafone Germany (Arcor)', ['vodafonede']],
  vsnl: ['rare', 'VSNL Mail (Tata)', ['vsnl']],
  windstream: ['rare', 'Windstream', ['windstream']],
  xs4all: ['rare', 'XS4ALL', ['xs4all']],
  xtra: ['rare', 'Xtra Mail', ['xtra']],
  ziggo: ['rare', 'Ziggo Mail', ['ziggo']],
  mail2world: ['rare', 'Mail2World', [], [], ['mail2world.com']],
};

// Package providers deliberately not imported: relays, and custom (business) providers without domains.
const PACKAGE_SKIPPED = new Set([
  'anonad',
  'apple_relay',
  'duck',
  'simple',
  'cloudflare',
  'mxrecord_io',
  'mxrecord_mx',
  'godadd',
  'hostga',
  'hostin',
  'iij',
  'ionos',
  'migadu',
  'namech',
  'neospa',
  'sitegr',
  'titan',
  'amazon',
  'blueho',
  'gworks',
  'ms365b',
  'onecom',
  'onlinemail',
  'proximus',
  'racksp',
  'simply',
]);

const excluded = new Map(); // reason -> Set of domains
const exclude = (reason, domain) => {
  if (!excluded.has(reason)) excluded.set(reason, new Set());
  excluded.get(reason).add(domain);
};

const isDisposable = (domain, registrable) => {
  // The domain or any parent up to its registrable domain (the disposable plugin matches parents too).
  let d = domain;
  for (;;) {
    if (disposable.has(d)) return true;
    if (d === registrable || !d.includes('.')) return false;
    d = d.slice(d.indexOf('.') + 1);
  }
};

/** Why a domain may not be listed, or null. */
function rejection(domain) {
  const info = parse(domain, { allowPrivateDomains: false });
  if (!info.isIcann || !info.domain) return 'not under an ICANN public suffix';
  if (isDisposable(domain, info.domain)) return 'disposable (freemail disposable.txt or disposable-email-domains-js)';
  if (RELAYS.has(domain) || RELAYS.has(info.domain)) return 'privacy relay';
  if (NOT_MAILBOX.has(domain)) return 'company or hosting domain, not a mailbox service';
  if (NOT_MAILBOX_DNS.has(domain) || NOT_MAILBOX_DNS.has(info.domain)) return 'dynamic DNS, DNS hosting or registrar, not a mailbox service';
  const privateSuffix = parse(domain, { allowPrivateDomains: true });
  if (privateSuffix.isPrivate && privateSuffix.publicSuffix === domain) return 'a private public suffix (PSL): its users get host names, not mailboxes';
  if (TYPO_SHAPED.has(domain)) return 'shaped like a typo of a common domain';
  if (freemailBlacklist.some((suffix) => domain.endsWith(suffix))) return 'freemail blacklist.txt';
  if (/(^|\.)(edu|ac|gov|mil)(\.|$)/.test(info.publicSuffix ?? '') || /(^|\.)(edu|ac|gov|mil)$/.test(domain)) return 'academic or government suffix';
  if (THROWAWAY_WORDS.some((word) => domain.includes(word))) return 'name suggests a throwaway service';
  return null;
}

const providers = new Map(); // key -> {group, name, domains[]}
const owner = new Map(); // domain -> key
const add = (key, domain) => {
  const previous = owner.get(domain);
  if (previous !== undefined) {
    if (previous !== key) throw new Error(`${domain} is claimed by ${previous} and ${key}`);
    return;
  }
  const why = rejection(domain);
  if (why) return exclude(why, domain);
  owner.set(domain, key);
  providers.get(key).domains.push(domain);
};

const packageById = new Map(packageProviders.map((p) => [p.id, p]));
const packageIdsUsed = new Set();
const brandKey = new Map();
// Domain overrides first, so a country variant (gmx.de -> gmx_de) wins over the package's grouping;
// a package domain another key already owns stays there.
for (const [key, [group, name, , , overrides = []]] of Object.entries(CURATED)) {
  providers.set(key, { group, name, domains: [] });
  for (const domain of overrides) add(key, domain);
}
for (const [key, [, , ids, brands = []]] of Object.entries(CURATED)) {
  for (const id of ids) {
    const provider = packageById.get(id);
    if (!provider) throw new Error(`provider package has no id ${id}`);
    packageIdsUsed.add(id);
    for (const domain of provider.domains ?? []) {
      const d = domain.toLowerCase();
      if (!owner.has(d)) add(key, d);
    }
  }
  for (const brand of brands) brandKey.set(brand, key);
}
for (const provider of packageProviders) {
  if (!packageIdsUsed.has(provider.id) && !PACKAGE_SKIPPED.has(provider.id)) throw new Error(`package provider ${provider.id} is neither curated nor skipped`);
}

// Breadth from free.txt: a domain under a listed domain joins its key (vip.163.com -> netease), a
// brand label joins the brand, mail2*.com joins Mail2World, anything else is the long tail.
const derived = [];
for (const domain of freeTxt) {
  if (owner.has(domain)) continue;
  const info = parse(domain, { allowPrivateDomains: false });
  const registrable = info.domain;
  if (registrable && registrable !== domain) {
    const parentKey = owner.get(registrable);
    if (parentKey) add(parentKey, domain);
    else exclude('host under a domain that is not a listed provider (dynamic DNS, junk)', domain);
    continue;
  }
  const label = info.domainWithoutSuffix ?? '';
  const brand = brandKey.get(label);
  if (brand) add(brand, domain);
  else if (label.startsWith('mail2') && info.publicSuffix === 'com') add('mail2world', domain);
  else derived.push(domain);
}

// The long tail: a domain the reviewed tables in long-tail.mjs place joins that key (a curated
// provider's former brand, or a long-tail provider kept as its own key); every other domain joins
// the catch-all key of its top-level domain, `other_<tld>` (`abwesend.de` -> other_de,
// `x.co.uk` -> other_uk, `x.com` -> other_com): a small free provider under that TLD, not a brand.
const CATCH_ALL = 'other_';
const keyOf = (text) => text.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
const placed = new Map(); // domain -> key, from the reviewed tables
const place = (key, domain) => {
  if (placed.has(domain)) throw new Error(`long-tail.mjs places ${domain} under ${placed.get(domain)} and ${key}`);
  placed.set(domain, key);
};
for (const [key, domains] of Object.entries(JOIN)) {
  if (!providers.has(key)) throw new Error(`long-tail.mjs joins domains to ${key}, which is not curated`);
  for (const domain of domains) place(key, domain);
}
for (const [key, [name, domains]] of Object.entries(LONG_TAIL)) {
  if (providers.has(key)) throw new Error(`long-tail key ${key} is curated already`);
  if (key.startsWith(CATCH_ALL)) throw new Error(`long-tail key ${key} looks like a catch-all`);
  providers.set(key, { group: 'rare', name, domains: [] });
  for (const domain of domains) place(key, domain);
}
/** The catch-all key of a domain's top-level domain, made on first use. */
const catchAllKey = (domain) => {
  const tld = keyOf((parse(domain, { allowPrivateDomains: false }).publicSuffix ?? '').split('.').pop() ?? '');
  if (tld === '') throw new Error(`no top-level domain for ${domain}`);
  const key = `${CATCH_ALL}${tld}`;
  if (!providers.has(key)) providers.set(key, { group: 'rare', name: `Other free providers (.${tld})`, domains: [] });
  return key;
};
for (const domain of derived) {
  const why = rejection(domain);
  if (why) {
    exclude(why, domain);
    continue;
  }
  add(placed.get(domain) ?? catchAllKey(domain), domain);
}

// Regional providers (regional.mjs): domains no other source lists, each entry with its evidence. A
// domain another key already holds stops the build (add throws), so a source never moves one silently;
// so does one the rules refuse (disposable, academic, a typo's shape, …): evidence does not override them.
const regionalAdded = [];
const addRegional = (key, domain) => {
  if (owner.get(domain) === key) return;
  const why = rejection(domain);
  if (why) throw new Error(`regional.mjs adds ${domain}, which the build refuses: ${why}`);
  const before = owner.size;
  add(key, domain);
  if (owner.size > before) regionalAdded.push(domain);
};
for (const [key, [name, domains]] of Object.entries(REGIONAL)) {
  if (providers.has(key)) throw new Error(`regional key ${key} exists already`);
  providers.set(key, { group: 'rare', name, domains: [] });
  for (const domain of domains) addRegional(key, domain);
}
for (const domain of [...REGIONAL_CATCH_ALL.domains, ...CONFIRMED_CATCH_ALL.domains]) addRegional(catchAllKey(domain), domain);
// @faker-js/faker's free-mail domain per locale: a brand label joins the brand, FAKER_KEYS places the
// rest, FAKER_SKIPPED drops what is no mailbox service, anything else joins its catch-all.
const fakerDomains = new Set(Object.values(allLocales).flatMap((locale) => locale.internet?.free_email ?? []));
for (const domain of Object.keys({ ...FAKER_KEYS, ...FAKER_SKIPPED }))
  if (!fakerDomains.has(domain)) throw new Error(`regional.mjs names ${domain}, which no faker-js locale lists`);
for (const domain of fakerDomains) {
  if (owner.has(domain)) continue;
  if (FAKER_SKIPPED[domain]) {
    exclude(`faker-js: ${FAKER_SKIPPED[domain]}`, domain);
    continue;
  }
  const why = rejection(domain);
  if (why) {
    exclude(why, domain);
    continue;
  }
  const brand = brandKey.get(parse(domain, { allowPrivateDomains: false }).domainWithoutSuffix ?? '');
  const placedKey = FAKER_KEYS[domain];
  if (placedKey && !providers.has(placedKey[0])) providers.set(placedKey[0], { group: 'rare', name: placedKey[1], domains: [] });
  addRegional(brand ?? placedKey?.[0] ?? catchAllKey(domain), domain);
}
// After faker-js, whose FAKER_KEYS make keys (docomo, softbank) that regional.mjs joins domains to.
for (const [key, { domains }] of Object.entries(REGIONAL_JOIN)) {
  if (!providers.has(key)) throw new Error(`regional.mjs joins domains to ${key}, which does not exist`);
  for (const domain of domains) addRegional(key, domain);
}
// Documented subdomains: every host under a parent counts (nc.rr.com is Spectrum's); the parent must be the key's own domain.
for (const [key, { parents }] of Object.entries(SUBDOMAINS)) {
  for (const parent of parents) if (owner.get(parent) !== key) throw new Error(`regional.mjs: ${parent} is not a domain of ${key}`);
  providers.get(key).subdomains_of = parents;
}
// A reviewed domain that free.txt does not list (or that is excluded) is reported, never added; one
// that another key holds (a package or brand rule took it first) stops the build for review.
const unplaced = [...placed].filter(([domain, key]) => owner.get(domain) !== key);
for (const [domain, key] of unplaced) {
  if (owner.has(domain)) throw new Error(`long-tail.mjs places ${domain} under ${key}, but ${owner.get(domain)} holds it`);
}

for (const [key, provider] of providers) {
  if (provider.domains.length === 0) throw new Error(`${key} has no domain left`);
  if (!/^[a-z0-9]+(_[a-z0-9]+)*$/.test(key)) throw new Error(`bad key ${key}`);
  if (key.startsWith(CATCH_ALL) && !provider.name.startsWith('Other free providers')) throw new Error(`${key} looks like a catch-all but is a provider`);
}

// Within a key, the domains the provider package lists come first, in its order (the main domains).
const packageRank = new Map(packageProviders.flatMap((p) => p.domains ?? []).map((d, i) => [d.toLowerCase(), i]));
const rank = (domain) => packageRank.get(domain) ?? Number.MAX_SAFE_INTEGER;
for (const provider of providers.values()) provider.domains.sort((a, b) => rank(a) - rank(b));

// Common keys first, then the rare brands, then the rare catch-alls; by key within each.
const tier = (key, p) => (p.group === 'common' ? 0 : key.startsWith(CATCH_ALL) ? 2 : 1);
const sorted = [...providers.entries()].sort(([a, pa], [b, pb]) => tier(a, pa) - tier(b, pb) || (a < b ? -1 : 1));
const body = sorted.map(([key, p]) => `  ${JSON.stringify(key)}: ${JSON.stringify(p)}`).join(',\n');
writeFileSync(OUT, `{\n${body}\n}\n`);

const common = sorted.filter(([, p]) => p.group === 'common');
const catchAll = sorted.filter(([key]) => key.startsWith(CATCH_ALL));
const catchAllDomains = catchAll.reduce((n, [, p]) => n + p.domains.length, 0);
console.log(
  `keys ${providers.size} (common ${common.length}, rare ${providers.size - common.length}: ${providers.size - common.length - catchAll.length} providers, ${catchAll.length} catch-alls with ${catchAllDomains} domains); domains ${owner.size}`,
);
console.log(`regional.mjs and faker-js added ${regionalAdded.length} domains${process.argv.includes('-v') ? `: ${regionalAdded.join(' ')}` : ''}`);
console.log(
  `reviewed long-tail domains not in free.txt (ignored): ${unplaced.length}${process.argv.includes('-v') ? `: ${unplaced.map(([d]) => d).join(' ')}` : ''}`,
);
for (const [reason, domains] of excluded) console.log(`excluded ${domains.size}: ${reason}${process.argv.includes('-v') ? `: ${[...domains].join(' ')}` : ''}`);
