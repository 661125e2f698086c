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
// - FED: npm free-email-domains 1.12.6 domains.json (MIT, published 2026-09-23; HubSpot's free-mail list,
//   merged by the package with two disposable lists and a hand-kept list of its own, scripts/postinstall.mjs
//   DOMAINS). Not a dependency (its install script downloads); coverage.mjs packs it. Only the domains
//   reviewed one by one below were taken: none of eight disposable lists has them (coverage.mjs checks it), and each is a
//   consumer ISP's or a mailbox provider's domain by the evidence named. The rest of what it holds and this
//   data lacks is classified in fed-review.mjs.
// - SA: Apache SpamAssassin's freemail list, 20_freemail_domains.cf ("commonly abused end user mail
//   providers", Apache-2.0, last updated upstream 2016-08-18), from Debian's spamassassin 4.0.1-1~deb12u1
//   (/usr/share/spamassassin/), read 2026-12-03 with apt-get download. Only its exact names count as
//   evidence, never its patterns (hotmail.*, yahoo.co*.* would confirm every look-alike). Issue 51.
// - Delta Chat: github.com/deltachat/provider-db, _providers/<provider>.md (the providers' domains, with
//   notes on each service), read 2026-12-03. Issue 51.

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
    domains: ['onlinehome.de', 'sofortstart.de', 'sofort-start.de', 'sofortsurf.de', 'sofort-surf.de', 'go4more.de', 'online-home.de'],
    source:
      'ISPDB 1und1.de.xml ("DSL customers"; its hosting domains kundenserver.de and schlund.de are left out); online-home.de: FED (its DOMAINS list, beside onlinehome.de)',
  },
  outlook: {
    domains: [
      'hotmail.dk',
      'hotmail.gr',
      'hotmail.sg',
      'hotmail.co.kr',
      'hotmail.com.ar',
      'live.co.kr',
      'live.hk',
      'msn.co.uk',
      'outlook.com.ar',
      'hotmail.co.in',
      'hotmail.co.za',
      'hotmail.com.tr',
      'hotmail.cz',
      'hotmail.fi',
      'hotmail.jp',
      'hotmail.my',
      'hotmail.ph',
    ],
    source:
      'email-providers all.json (hotmail.dk … outlook.com.ar) and FED (hotmail.co.in … hotmail.ph; most in its DOMAINS list): national Outlook.com (Hotmail, Live, MSN) domains',
  },
  posteo: {
    domains: [
      'posteo.af',
      'posteo.at',
      'posteo.be',
      'posteo.ch',
      'posteo.cl',
      'posteo.co',
      'posteo.co.uk',
      'posteo.cr',
      'posteo.cz',
      'posteo.dk',
      'posteo.ee',
      'posteo.es',
      'posteo.eu',
      'posteo.fi',
      'posteo.gl',
      'posteo.gr',
      'posteo.hn',
      'posteo.hr',
      'posteo.hu',
      'posteo.ie',
      'posteo.in',
      'posteo.is',
      'posteo.jp',
      'posteo.la',
      'posteo.li',
      'posteo.lt',
      'posteo.lu',
      'posteo.me',
      'posteo.mx',
      'posteo.my',
      'posteo.nl',
      'posteo.no',
      'posteo.nz',
      'posteo.org',
      'posteo.pe',
      'posteo.pl',
      'posteo.pm',
      'posteo.pt',
      'posteo.ro',
      'posteo.ru',
      'posteo.se',
      'posteo.sg',
      'posteo.si',
      'posteo.tn',
      'posteo.uk',
      'posteo.us',
    ],
    source: "FED (its DOMAINS list): Posteo's alias domains, which every Posteo mailbox may use",
  },
  gmx: { domains: ['gmx.ca', 'gmx.hk', 'gmx.ie', 'gmx.pt', 'gmx.sg', 'gmx.tw'], source: "FED (its DOMAINS list): GMX's national domains" },
  gmx_de: { domains: ['gmx-ist-cool.de', 'gmx-topmail.de'], source: "FED (its DOMAINS list): GMX's German fun domains" },
  aol: { domains: ['aol.de'], source: 'FED (its DOMAINS list): AOL Germany' },
  vodafone_de: { domains: ['unitybox.de'], source: 'FED: Unitymedia cable mail (Unitymedia joined Vodafone Germany in 2019)' },
  interia: { domains: ['interia.eu'], source: 'FED (its DOMAINS list): Interia Poczta' },
  onet: { domains: ['poczta.onet.eu'], source: 'FED (its DOMAINS list): Onet Poczta' },
  o2_pl: { domains: ['tlen.pl'], source: "FED (its DOMAINS list): Tlen.pl, o2's (Grupa o2) mail and messenger" },
  orange: { domains: ['voila.fr'], source: "FED (its DOMAINS list) and email-providers all.json: Voila, France Télécom's (Orange's) portal mail" },
  sfr: { domains: ['neuf.fr'], source: 'FED (its DOMAINS list) and email-providers all.json: Neuf Cegetel, merged into SFR' },
  numericable: { domains: ['noos.fr'], source: 'FED (its DOMAINS list): Noos cable, merged into Numericable' },
  movistar: { domains: ['telefonica.net'], source: "FED: Telefónica's (Movistar's) Spanish ISP mail" },
  tele2: { domains: ['tele2.no'], source: 'FED (its DOMAINS list): Tele2 Norway' },
  tiscali: { domains: ['tiscali.no'], source: 'FED (its DOMAINS list): Tiscali Norway' },
  upc: { domains: ['chello.no'], source: "FED (its DOMAINS list): UPC's chello in Norway (beside chello.at, chello.nl)" },
  jubii: {
    domains: ['jubii.dk', 'jubiichat.dk', 'jubiiconnect.dk', 'jubiigames.dk', 'jubiipost.dk', 'jubiipostadresse.dk'],
    source: "FED (its DOMAINS list): Jubii's Danish portal mail domains",
  },
  lycos: { domains: ['lycos.co.kr'], source: 'FED: Lycos Korea' },
  telenet: { domains: ['pandora.be'], source: "FED: Pandora, Telenet's former broadband brand (Belgium)" },
  spectrum: { domains: ['twcny.com'], source: "FED: Time Warner Cable's New York mail (now Spectrum)" },
  nifty: { domains: ['nifty.ne.jp'], source: 'FED (its DOMAINS list, beside nifty.com): @nifty' },
  biglobe: { domains: ['mesh.ad.jp'], source: "FED (its DOMAINS list): BIGLOBE's former (NEC mesh) domain" },
  docomo: { domains: ['mopera.net'], source: "FED (its DOMAINS list): NTT docomo's mopera U ISP mail" },
  au_kddi: {
    domains: ['au.com', 'auone-net.jp', 'dion.ne.jp', 'uqmobile.jp', 'sky.tu-ka.ne.jp', 'sky.tkc.ne.jp', 'sky.tkk.ne.jp'],
    source: "FED (its DOMAINS list): KDDI's au mail (au.com), au one net and DION ISP mail, UQ mobile, and the former Tu-Ka carrier mail",
  },
  softbank: {
    domains: [
      'ybb.ne.jp',
      'bbtec.net',
      'odn.ne.jp',
      'odn.ad.jp',
      'vodafone.ne.jp',
      'ymobile.ne.jp',
      'ymobile1.ne.jp',
      'emobile.ne.jp',
      'willcom.com',
      'wcm.ne.jp',
      'pdx.ne.jp',
    ],
    source:
      "FED (its DOMAINS list; ybb.ne.jp also email-providers all.json): SoftBank's Yahoo! BB and ODN ISP mail, its carrier mail of the Vodafone K.K. era, and Y!mobile's (EMOBILE, WILLCOM) carrier mail",
  },
  rakuten: {
    domains: ['rakumail.jp', 'rakuten.jp', 'infoseek.jp', 'infoseek.co.jp'],
    source: 'FED (its DOMAINS list): Rakuten Mail and Infoseek (Rakuten) mail',
  },
  // Issue 51: providers' own domains a second source confirms.
  btinternet: {
    domains: ['btopenworld.com'],
    source: 'ISPDB btinternet.com (github.com/thunderbird/autoconfig a354cde, "BT Mail": btinternet.com, btopenworld.com, talk21.com)',
  },
  netscape: { domains: ['netscape.com'], source: 'ISPDB aol.com.xml (an AOL brand domain, beside netscape.net) and SA' },
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
  // From FED (see the head of this file), by the regions issue 16 names and then every consumer ISP it holds.
  t_online_hu: ['T-Online Hungary (Magyar Telekom)', ['t-online.hu'], 'FED (its DOMAINS list) and email-providers all.json'],
  indamail: ['Indamail', ['indamail.hu'], 'FED (its DOMAINS list): the free mail of the Hungarian Index/Inda portal'],
  elisa_fi: ['Elisa (Finland)', ['elisanet.fi'], "FED: Elisa's Finnish ISP mail"],
  dna_fi: ['DNA (Finland)', ['dnainternet.net'], "FED: DNA's Finnish ISP mail"],
  telia_fi: ['Telia Finland (Inet)', ['pp.inet.fi'], "FED: Telia Finland's (formerly Sonera's) Inet ISP mail"],
  iol_pt: ['IOL Mail (Portugal)', ['iol.pt'], 'FED: the free mail of the Portuguese IOL portal'],
  telepac: ['Telepac (MEO)', ['telepac.pt'], "FED: Portugal Telecom's Telepac ISP mail (now MEO)"],
  clear_nz: ['CLEAR Net (New Zealand)', ['clear.net.nz'], 'FED: CLEAR Communications (later TelstraClear) ISP mail'],
  internode: ['Internode', ['internode.on.net'], 'FED and email-providers all.json: the Australian ISP Internode'],
  mediacom: ['Mediacom', ['mchsi.com'], "FED and email-providers all.json: Mediacom's (Mediacom High Speed Internet) US cable mail"],
  rcn: ['RCN', ['rcn.com'], 'FED and email-providers all.json: the US cable ISP RCN'],
  kakao: ['Kakao Mail', ['kakao.com'], "FED (its DOMAINS list): Kakao's mail (Korea)"],
  livedoor: ['livedoor mail', ['livedoor.com'], "FED (its DOMAINS list): the Japanese portal livedoor's mail"],
  plala: ['Plala (NTT)', ['plala.or.jp'], "FED (its DOMAINS list): NTT's Plala ISP mail"],
  so_net: ['So-net', ['so-net.ne.jp'], "FED (its DOMAINS list): Sony's So-net ISP mail"],
  jcom: [
    'J:COM',
    ['zaq.ne.jp', 'jcom.zaq.ne.jp', 'jcom.home.ne.jp'],
    "FED (its DOMAINS list; jcom.home.ne.jp also email-providers all.json): J:COM's cable ISP mail",
  ],
  iij: ['IIJ', ['iij4u.or.jp', '2iij.net'], "FED (its DOMAINS list): IIJ's consumer ISP mail (IIJ4U, IIJmio)"],
  thexyz: [
    'Thexyz Email',
    ['thexyz.ca', 'thexyz.fr', 'thexyz.in', 'thexyz.mobi', 'thexyz.net', 'thexyz.org'],
    "FED (its DOMAINS list): Thexyz's mailbox domains",
  ],
  // Issue 51.
  cock_li: ['cock.li', ['cock.li'], 'FED, confirmed by Delta Chat _providers/cock.li.md (a free mail service, IMAP and SMTP at mail.cock.li)'],
};

/**
 * Consumer ISPs and portals whose owner no source names beside the domain: each joins the catch-all of its
 * top-level domain (other_no, other_jp, …), like the rest of the long tail. Evidence: FED (see the head of
 * this file); most are in its own DOMAINS list.
 */
export const REGIONAL_CATCH_ALL = {
  domains: [
    // Norway: ISPs and portals (Telenor's online.no, NetCom, Lyse, Broadpark, NTE, Haugaland, Mimer, Start.no, Frisurf, …).
    'online.no',
    'netcom.no',
    'lyse.net',
    'broadpark.no',
    'ntebb.no',
    'haugnett.no',
    'mimer.no',
    'start.no',
    'frisurf.no',
    'getmail.no',
    'bluezone.no',
    'bbnett.no',
    'ebnett.no',
    'adsl.no',
    'losmail.no',
    'epost.no',
    // Japan: ISPs, portals and carrier mail that changed hands (Disney Mobile, ymail.ne.jp).
    'asahi-net.or.jp',
    'bbiq.jp',
    'commufa.jp',
    'dti.ne.jp',
    'emnet.ne.jp',
    'eonet.ne.jp',
    'hi-ho.ne.jp',
    'infoweb.ne.jp',
    'kcn.ne.jp',
    'mail.bbexcite.jp',
    'mail.goo.ne.jp',
    'megaegg.ne.jp',
    'mineo.jp',
    'panda.tnc.ne.jp',
    'pikara.ne.jp',
    'spaaqs.ne.jp',
    't-com.ne.jp',
    'tiki.ne.jp',
    'disney.ne.jp',
    'ymail.ne.jp',
    'tokai.or.jp',
    'ucom.ne.jp',
    'freemail.ne.jp',
    // Korea: portals and ISPs (Chollian, Dreamwiz, Freechal, Hanaro, KT's Hanmir, Hitel, Kornet and Paran, Thrunet, Netsgo, Nownuri).
    'chol.com',
    'chollian.net',
    'dreamwiz.com',
    'freechal.com',
    'hanafos.com',
    'hananet.net',
    'hanmir.com',
    'hitel.net',
    'kornet.net',
    'paran.com',
    'thrunet.com',
    'unitel.co.kr',
    'netsgo.com',
    'nownuri.net',
    // Hungary, Finland, Denmark, Germany, Switzerland, Israel, Ukraine.
    'vipmail.hu',
    'lajt.hu',
    'euromail.hu',
    'netti.fi',
    'mail.dk',
    'mail.de',
    'e-mail.de',
    'mail.ch',
    'nana10.co.il',
    'zahav.net.il',
    'ukrpost.net',
    // US rural and regional ISPs; GOL, a Tokyo ISP.
    'atmc.net',
    'comporium.net',
    'gol.com',
    'copper.net',
    'foothills.net',
    'ntelos.net',
    'clearwire.net',
    'scottsboro.org',
    'townisp.com',
  ],
  source: 'FED (see the head of this file)',
};

/**
 * Issue 51: small free providers of free-email-domains (and email-providers) that SpamAssassin's freemail
 * list also names, exactly; no source names their owner, so they join their other_<tld> catch-all.
 */
export const CONFIRMED_CATCH_ALL = {
  domains: [
    'home.no.net', // Norway
    'jovem.te.pt', // Portugal
    'educacao.te.pt',
    'mail.austria.com',
    'mail.bulgaria.com',
    'games.com', // in email-providers common.json, not in free-email-domains
  ],
  source: 'FED (games.com: email-providers common.json), each confirmed by SA',
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
