// Regional ISPs and mailbox providers consumer sign-ups use, reviewed for issue 16, used by build.mjs.
// Unlike long-tail.mjs these tables ADD domains that neither free.txt nor the provider package lists;
// every entry names its evidence. Sources:
// - ISPDB: Thunderbird's ISP database (github.com/thunderbird/autoconfig, ispdb/<file>, MPL-2.0), which
//   lists the address domains each provider serves, read 2026-11-24.
// - email-providers: npm email-providers 2.26.0 all.json (ISC, devDependency).
// - faker-js: npm @faker-js/faker 10.6.0, each locale's internet.free_email list (MIT, devDependency),
//   read by build.mjs itself: FAKER_KEYS below keys its domains, FAKER_SKIPPED drops the ones that are
//   no mailbox service.
// - Faker (Python): github.com/joke2k/faker, faker/providers/internet/<locale>/__init__.py
//   free_email_domains (MIT), read 2026-11-24.

/** Domains added to a provider key that already exists (curated or long-tail), with their evidence. */
export const REGIONAL_JOIN = {
  virginmedia: { domains: ['ntlworld.com', 'blueyonder.co.uk'], source: 'ISPDB ntlworld.com.xml, blueyonder.co.uk ("Virgin Media Mail")' },
  kpn: {
    domains: [
      'kpnplanet.nl',
      'wxs.nl',
      'snelnet.net',
      'tiscali.nl',
      'tiscalimail.nl',
      'tip.nl',
      'onsmail.nl',
      'onsbrabantnet.nl',
      'onsnet.nu',
      'onsneteindhoven.nl',
      'onsnetnuenen.nl',
    ],
    source: 'ISPDB kpnmail.nl.xml ("KPN E-mail")',
  },
  bigpond: { domains: ['bigpond.net'], source: 'ISPDB bigpond.com.xml ("Telstra Mail")' },
  online_de: {
    domains: ['onlinehome.de', 'sofortstart.de', 'sofort-start.de', 'sofortsurf.de', 'sofort-surf.de', 'go4more.de'],
    source: 'ISPDB 1und1.de.xml ("DSL customers"; its hosting domains kundenserver.de and schlund.de are left out)',
  },
  outlook: {
    domains: ['hotmail.dk', 'hotmail.gr', 'hotmail.sg', 'hotmail.co.kr', 'hotmail.com.ar', 'live.co.kr', 'live.hk', 'msn.co.uk', 'outlook.com.ar'],
    source: 'email-providers all.json: national Outlook.com (Hotmail, Live, MSN) domains',
  },
};

/** New regional provider keys: [name, domains, evidence]. All join the rare group. */
export const REGIONAL = {
  kabel_deutschland: ['Kabel Deutschland (Vodafone)', ['kabelmail.de'], 'ISPDB kabelmail.de.xml'],
  ewe: ['EWE Mail', ['ewe.net', 'ewetel.de', 'teleos-web.de'], 'ISPDB ewetel.de.xml'],
  suomi24: ['Suomi24 Mail', ['suomi24.fi'], 'Faker fi_FI'],
  kolumbus: ['Kolumbus', ['kolumbus.fi'], 'Faker fi_FI'],
  surffi: ['Surffi', ['surffi.net'], 'Faker fi_FI'],
  clix_pt: ['Clix', ['clix.pt'], 'Faker pt_PT'],
  inspire_nz: ['Inspire Net', ['inspire.net.nz'], 'Faker en_NZ'],
};

/** faker-js free_email domains that are no curated brand: the key each joins ([name] for a new key). */
export const FAKER_KEYS = {
  'atlas.cz': ['atlas_cz', 'Atlas.cz Mail'],
  'volny.cz': ['volny_cz', 'Volný.cz Mail'],
  'worldlink.com.np': ['worldlink_np', 'WorldLink (Nepal)'],
  'citromail.hu': ['citromail', 'Citromail'],
  'docomo.ne.jp': ['docomo', 'NTT docomo mail'],
  'ezweb.ne.jp': ['au_kddi', 'au (KDDI) mail'],
  'i.softbank.jp': ['softbank', 'SoftBank mail'],
  'softbank.ne.jp': ['softbank', 'SoftBank mail'],
  'azet.sk': ['azet', 'Azet.sk Mail'],
  'zoznam.sk': ['zoznam', 'Zoznam.sk Mail'],
};

/** faker-js free_email domains left out, and why (the rest join their other_<tld> catch-all). */
export const FAKER_SKIPPED = {
  'corpfolder.com': 'a made-up business domain of the es_MX locale, no mailbox service',
  'nearbpo.com': 'a made-up business domain of the es_MX locale, no mailbox service',
  'hotamil.com': 'a typo of hotmail.com (typo detection corrects it)',
  'gmail.co.id': 'Gmail has no such domain: a typo of gmail.com',
  'gmail.ru': 'Gmail has no such domain: a typo of gmail.com',
};

/**
 * Providers that hand out addresses on subdomains of their domain, as they document it: any host under
 * a listed parent counts (nc.rr.com is Spectrum), the parent itself only when listed as a domain.
 */
export const SUBDOMAINS = {
  spectrum: {
    parents: ['rr.com'],
    source:
      'Road Runner (Time Warner Cable, now Spectrum) addresses are user@<region>.rr.com, all on one server set (ISPDB rr.com.xml); freemail free.txt lists 8 regional rr.com domains, email-providers all.json 33 (nc.rr.com, socal.rr.com, …)',
  },
  plusnet: {
    parents: ['plus.com', 'force9.co.uk'],
    source: 'Plusnet (and its Force9 brand) addresses are anything@<username>.plus.com / .force9.co.uk (Plusnet help, "Plusnet email addresses")',
  },
  freeserve: {
    parents: ['freeserve.co.uk'],
    source: 'Freeserve addresses are anything@<username>.freeserve.co.uk (Freeserve, later Orange UK and EE, help pages)',
  },
};
