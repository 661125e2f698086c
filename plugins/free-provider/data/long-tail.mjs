// Reviewed owner data for freemail's long tail, used by build.mjs. Only domains that free.txt
// already lists are affected: these tables re-key domains, they never add one to the list.
//
// - JOIN: long-tail domains that belong to a curated provider (a former brand, a second domain).
// - LONG_TAIL: long-tail providers kept as their own rare key: a well-known webmail service, portal
//   or ISP of its market, or several domains of one service.
// Every other long-tail domain goes to the catch-all key of its top-level domain (`other_de`,
// `other_com`): "a small free provider under that TLD", not a brand.
//
// Evidence: Thunderbird's ISP database (github.com/thunderbird/autoconfig, ispdb/*.xml, MPL-2.0),
// which lists the address domains each provider serves, where it has the provider ("ISPDB" below);
// Fastmail's published list of its sign-up domains; otherwise a documented acquisition or rename.

/** mail.com's address domains, ISPDB ispdb/mail.com.xml ("big" and "smaller" domains). */
const MAIL_COM = [
  'mail.org', 'post.com', 'accountant.com', 'dr.com', 'engineer.com', 'cheerful.com', 'techie.com', 'linuxmail.org',
  'london.com', 'iname.com', 'writeme.com', '2die4.com', 'activist.com', 'adexec.com', 'africamail.com',
  'aircraftmail.com', 'allergist.com', 'alumni.com', 'alumnidirector.com', 'americamail.com', 'amorous.com',
  'angelic.com', 'archaeologist.com', 'artlover.com', 'asia-mail.com', 'atheist.com', 'australiamail.com',
  'bartender.net', 'berlin.com', 'bigger.com', 'bikerider.com', 'birdlover.com', 'blader.com', 'boardermail.com',
  'brazilmail.com', 'brew-master.com', 'californiamail.com', 'caress.com', 'catlover.com', 'chef.net', 'chemist.com',
  'chinamail.com', 'clerk.com', 'cliffhanger.com', 'collector.org', 'columnist.com', 'comic.com', 'computer4u.com',
  'contractor.net', 'coolsite.net', 'counsellor.com', 'count.com', 'couple.com', 'cutey.com', 'cyberdude.com',
  'cybergal.com', 'cyber-wizard.com', 'dallasmail.com', 'dbzmail.com', 'deliveryman.com', 'diplomats.com',
  'disciples.com', 'doctor.com', 'doglover.com', 'doramail.com', 'dublin.com', 'earthling.net', 'elvisfan.com',
  'englandmail.com', 'europemail.com', 'execs.com', 'fan.com', 'feelings.com', 'financier.com', 'fireman.net',
  'footballer.com', 'gardener.com', 'geologist.com', 'germanymail.com', 'graduate.org', 'graphic-designer.com',
  'hackermail.com', 'hairdresser.net', 'hilarious.com', 'hockeymail.com', 'homemail.com', 'hot-shot.com', 'hour.com',
  'humanoid.net', 'innocent.com', 'inorbit.com', 'instruction.com', 'instructor.net', 'insurer.com', 'irelandmail.com',
  'italymail.com', 'japan.com', 'journalist.com', 'keromail.com', 'kittymail.com', 'koreamail.com', 'lawyer.com',
  'legislator.com', 'loveable.com', 'lovecat.com', 'madonnafan.com', 'madrid.com', 'marchmail.com', 'mexicomail.com',
  'mindless.com', 'minister.com', 'mobsters.com', 'monarchy.com', 'moscowmail.com', 'munich.com', 'musician.org',
  'muslim.com', 'null.net', 'nycmail.com', 'oath.com', 'optician.com', 'pacificwest.com', 'petlover.com',
  'photographer.net', 'playful.com', 'poetic.com', 'politician.com', 'popstar.com', 'presidency.com', 'priest.com',
  'programmer.net', 'publicist.com', 'realtyagent.com', 'reborn.com', 'reggaefan.com', 'religious.com', 'repairman.com',
  'representative.com', 'rescueteam.com', 'revenue.com', 'rocketship.com', 'rockfan.com', 'rome.com', 'royal.net',
  'saintly.com', 'salesperson.net', 'sanfranmail.com', 'scientist.com', 'scotlandmail.com', 'secretary.net',
  'seductive.com', 'singapore.com', 'snakebite.com', 'songwriter.net', 'soon.com', 'spainmail.com', 'teachers.org',
  'technologist.com', 'thegame.com', 'therapist.net', 'toke.com', 'tokyo.com', 'toothfairy.com', 'tvstar.com',
  'umpire.com', 'wallet.com', 'webname.com', 'weirdness.com', 'who.net', 'whoever.com', 'winning.com', 'witty.com',
  'worker.com', 'workmail.com', 'yours.com',
];

/** Fastmail's sign-up domains (its published "our domains" list; fastmail.* itself is curated). */
const FASTMAIL = [
  '123mail.org', '150mail.com', '150ml.com', '16mail.com', '2-mail.com', '4email.net', '50mail.com', 'airpost.net',
  'allmail.net', 'bestmail.us', 'cluemail.com', 'elitemail.org', 'emailcorner.net', 'emailengine.net', 'emailengine.org',
  'emailgroups.net', 'emailplus.org', 'emailuser.net', 'eml.cc', 'fastem.com', 'fast-email.com', 'fastemail.us',
  'fastemailer.com', 'fastest.cc', 'fastimap.com', 'fast-mail.org', 'fastmailbox.net', 'fastmessaging.com', 'fea.st',
  'f-m.fm', 'fmail.co.uk', 'fmailbox.com', 'fmgirl.com', 'fmguy.com', 'ftml.net', 'hailmail.net', 'h-mail.us', 'imap.cc',
  'imap-mail.com', 'imapmail.org', 'inoutbox.com', 'internet-e-mail.com', 'internetemails.net', 'internet-mail.org',
  'internetmailing.net', 'jetemail.net', 'justemail.net', 'letterboxes.org', 'mailandftp.com', 'mailas.com',
  'mailbolt.com', 'mailc.net', 'mailcan.com', 'mail-central.com', 'mailforce.net', 'mailftp.com', 'mailhaven.com',
  'mailingaddress.org', 'mailite.com', 'mailmight.com', 'mailnew.com', 'mail-page.com', 'mailsent.net', 'mailservice.ms',
  'mailup.net', 'mailworks.org', 'ml1.net', 'mm.st', 'myfastmail.com', 'mymacmail.com', 'ownmail.net', 'petml.com',
  'postinbox.com', 'postpro.net', 'proinbox.com', 'promessage.com', 'realemail.net', 'reallyfast.biz', 'reallyfast.info',
  'rushpost.com', 'sent.as', 'sent.at', 'sent.com', 'speedpost.net', 'speedymail.org', 'ssl-mail.com', 'swift-mail.com',
  'the-fastest.net', 'theinternetemail.com', 'the-quickest.com', 'veryfast.biz', 'veryspeedy.net', 'warpmail.net',
  'xsmail.com', 'yepmail.net', 'your-mail.com',
];

/** GMX's German vanity domains, ISPDB ispdb/gmx.net.xml (the comment listing them). */
const GMX_VANITY = [
  'bist-eine-haelfte-von-mir.de', 'bleib-bei-mir.de', 'es-ist-liebe.de', 'fahr-zur-hoelle.org', 'ich-bin-verrueckt-nach-dir.de',
  'ist-allein.info', 'ist-es-liebe.de', 'ist-ganz-allein.de', 'ist-willig.de', 'lass-es-geschehen.de', 'liebt-dich.info',
  'loveyouforever.de', 'moechte-mit-dir-aufwachen.de', 'schmusemail.de', 'schreib-doch-mal-wieder.de',
  'teilt-mit-dir-alle-geheimnisse.de', 'verlass-mich-nicht.de', 'vorsicht-scharf.de', 'weinenvorglueck.de', 'alphafrau.de',
  'feinripptraeger.de', 'fettabernett.de', 'ist-einmalig.de', 'kaffeeschluerfer.com', 'liebt-den-mann-ihrer-chefin.de',
  'liebt-die-frau-seines-chefs.de', 'maennerversteherin.com', 'partybombe.de', 'partyheld.de', 'polizisten-duzer.de',
  'raubtierbaendiger.de', 'saeuferleber.de', 'tortenboxer.de', 'turboprinz.de', 'turboprinzessin.de', 'vorsicht-bissig.de',
  'alpenjodel.de', 'das-spiel-hat-90-minuten.de', 'der-ball-ist-rund.net', 'die-genossen.de', 'die-optimisten.net',
  'email-ausdrucker.de', 'fantasymail.de', 'freudenkinder.de', 'gentlemansclub.de', 'gmx-ist-cool.de', 'herr-der-mails.de',
  'ich-habe-fertig.com', 'meine-wahrheit-deine-wahrheit.de', 'muskelshirt.de', 'quantentunnel.de', 'sags-per-mail.de',
  'sonnenkinder.org', 'turnbeutel-vergesser.com', 'vollbio.de', 'volloeko.de', 'vorabend-einchecker.de', 'weibsvolk.org',
  'wenns-um-email-geht.de', 'wir-sind-cool.org', 'wolke7.net', 'abwesend.de', 'baldmama.de', 'baldpapa.de',
  'betriebsdirektor.de', 'buerotiger.de', 'habmalnefrage.de', 'hab-verschlafen.de', 'ich-will-net.de', 'kommespaeter.de',
  'mailueberfall.de', 'netterchef.de', 'nurfuerspam.de', 'streber24.de', 'terminverpennt.de', 'unterderbruecke.de',
  'will-hier-weg.de', 'wir-haben-nachwuchs.de', 'women-at-work.org', 'bin-wieder-da.de', 'coole-files.de',
  'die-besten-bilder.de', 'digi-dia-freakshow.de', 'digital-filestore.de', 'digitalfoto-model-award.de',
  'download-privat.de', 'gmx-topmail.de', 'meine-dateien.info', 'meine-diashow.de', 'meine-fotos.info',
  'meine-urlaubsfotos.de', 'neue-dateien.de', 'office-dateien.de', 'peinliche-fotos.de', 'public-files.de',
  'shared-files.de', 'topmail-files.de', 'war-im-urlaub.de',
];

/** Curated key -> long-tail domains that belong to it. */
export const JOIN = {
  mail_com: MAIL_COM,
  fastmail: FASTMAIL,
  // GMX's vanity list, plus the .de twins of four of its .com/.net/.org names.
  gmx_de: [...GMX_VANITY, 'kaffeeschluerfer.de', 'maennerversteherin.de', 'die-optimisten.de', 'weibsvolk.de'],
  att: ['prodigy.net', 'swbell.net'], // ISPDB att.net.xml
  centurylink: ['centurytel.net', 'embarqmail.com', 'qwest.net', 'qwestoffice.net', 'uswestmail.net'], // ISPDB centurytel.net, centurylink.net; US West became Qwest, which merged into CenturyLink
  earthlink: ['mindspring.com', 'peoplepc.com'], // ISPDB earthlink.net.xml
  spectrum: ['bresnan.net', 'roadrunner.com'], // ISPDB charter.net.xml; Road Runner is Time Warner Cable's, now Spectrum
  bigpond: ['telstra.com'], // ISPDB bigpond.com.xml (Telstra Mail)
  kpn: ['freeler.nl', 'telfort.nl'], // ISPDB kpnmail.nl.xml
  libero: ['iol.it', 'inwind.it'], // ISPDB libero.it
  netease: ['126.net'],
  frontier: ['frontiernet.net'],
  verizon: ['verizonmail.com'],
  windstream: ['alltel.net'], // Alltel's wireline business became Windstream
  btinternet: ['btopenworld.co.uk', 'talk21.com'], // BT's former ISP and webmail brands
  plusnet: ['force9.co.uk'], // Force9 was Plusnet's own ISP brand
  virginmedia: ['virgin.net'],
  ziggo: ['casema.nl'], // Casema merged into Ziggo
  orange: ['wanadoo.es'], // Wanadoo Spain became Orange Spain
  rambler: ['myrambler.ru'],
  wp_pl: ['vp.pl'], // a Wirtualna Polska address domain
  interia: ['poczta.fm'], // an Interia address domain
  rediffmail: ['rediffmailpro.com'],
  yahoo: ['kimo.com'], // Yahoo! Kimo, Taiwan
  hushmail: ['hush.com', 'hush.ai'],
  lycos: ['lycosmail.com', 'lycosemail.com', 'mailcity.com'], // MailCity was Lycos's webmail
  excite: ['mailexcite.com'],
  eircom: ['oceanfree.net'], // eircom's free dial-up brand
};

/** Rare key -> [name, domains]: long-tail providers kept as their own key. */
export const LONG_TAIL = {
  // Several domains of one service.
  altavista: ['AltaVista Mail', ['altavista.com', 'altavista.net', 'altavista.se']],
  netcourrier: ['Netcourrier (Mailo)', ['netcourrier.com', 'netcmail.com', 'net-c.com', 'net-c.be', 'net-c.ca', 'net-c.cat', 'net-c.es', 'net-c.fr', 'net-c.it', 'net-c.lu', 'net-c.nl', 'net-c.pl', 'netc.eu', 'netc.fr', 'netc.it', 'netc.lu', 'netc.pl']],
  looksmart: ['LookSmart Mail', ['looksmart.com', 'looksmart.co.uk', 'looksmart.com.au']],
  upc: ['UPC (chello)', ['upc.nl', 'upcmail.nl', 'chello.nl', 'chello.at']],
  tele2: ['Tele2', ['tele2.nl', 'tele2.at']],
  a1: ['A1 Telekom Austria (aon)', ['a1.net', 'aon.at']], // ISPDB a1.net.xml
  inbox_lv: ['Inbox.lv', ['inbox.lv', 'inbox.lt']], // ISPDB inbox.lv.xml
  i_ua: ['I.UA (Ukraine)', ['i.ua', 'email.ua', 'ua.fm']],
  apollo_lv: ['Apollo (Latvia)', ['apollo.lv', 'e-apollo.lv']],
  portugalmail: ['Portugalmail', ['portugalmail.pt', 'portugalmail.com']],
  walla: ['Walla! Mail (Israel)', ['walla.co.il', 'walla.com']],
  yalla: ['Yalla (Lebanon)', ['yalla.com', 'yalla.com.lb']],
  spray: ['Spray (Sweden, Norway)', ['spray.se', 'spray.no']],
  freeola: ['Freeola', ['freeola.com', 'freeola.net']],
  freeuk: ['FreeUK', ['freeuk.com', 'freeuk.net', 'freeukisp.co.uk']],
  freeserve: ['Freeserve (UK)', ['freeserve.co.uk', 'fsmail.net']],
  netscape: ['Netscape Mail', ['netscape.net', 'netscapeonline.co.uk']],
  compuserve: ['CompuServe', ['compuserve.com', 'cs.com']],
  icq: ['ICQ Mail', ['icq.com', 'icqmail.com']],
  xoom: ['Xoom.com Mail', ['xoom.com', 'xoommail.com']],
  wideopenwest: ['WOW! (WideOpenWest)', ['wideopenwest.com', 'wowway.com']],
  vodafone_nl: ['Vodafone Netherlands', ['vodafone.nl', 'vodafonethuis.nl']],
  iinet: ['iiNet (Westnet, OzEmail)', ['iinet.net.au', 'westnet.com.au', 'ozemail.com.au']],
  mantra: ['Mantra Online (India)', ['mantramail.com', 'mantraonline.com', 'mantrafreenet.com']],
  sohu: ['Sohu Mail', ['sohu.com', 'sogou.com']],
  centermail: ['Centermail', ['centermail.de', 'center-mail.de', 'centermail.at', 'centermail.info']],
  ubbi: ['Ubbi (Brazil)', ['ubbi.com.br', 'ubbi.com']],
  bigfoot: ['Bigfoot', ['bigfoot.com', 'bigfoot.de']],
  iobox: ['Iobox (Finland)', ['iobox.fi', 'iobox.com']],
  gyorsposta: ['Gyorsposta (Hungary)', ['gyorsposta.hu', 'gyorsposta.com']],
  primposta: ['Primposta (Hungary)', ['primposta.hu', 'primposta.com']],
  levele: ['Levele (Hungary)', ['levele.hu', 'levele.com']],
  n2mail: ['N2 Mail (n2*.com)', ['n2.com', 'n2mail.com', 'n2baseball.com', 'n2business.com', 'n2soccer.com', 'n2software.com']],
  // One domain: a well-known webmail service, portal or ISP of its market.
  tom: ['TOM Mail (China)', ['tom.com']],
  china_mobile: ['139 Mail (China Mobile)', ['139.com']],
  china_telecom: ['189 Mail (China Telecom)', ['189.cn']],
  china_unicom: ['Wo Mail (China Unicom)', ['wo.com.cn']],
  china_com: ['China.com Mail', ['china.com']],
  eyou: ['eYou Mail (China)', ['eyou.com']],
  yam: ['Yam Mail (Taiwan)', ['yam.com']],
  sanook: ['Sanook! Mail (Thailand)', ['sanook.com']],
  singnet: ['SingNet (Singtel)', ['singnet.com.sg']],
  vnn: ['VNN (VNPT, Vietnam)', ['vnn.vn']],
  maktoob: ['Maktoob', ['maktoob.com']],
  mynet: ['Mynet (Turkey)', ['mynet.com']],
  tut_by: ['TUT.BY (Belarus)', ['tut.by']],
  bigmir: ['Bigmir)net (Ukraine)', ['bigmir.net']],
  o2_pl: ['o2 Poczta (Poland)', ['o2.pl']], // ISPDB o2.pl.xml
  gazeta_pl: ['Gazeta.pl Poczta', ['gazeta.pl']],
  o2_uk: ['O2 UK', ['o2.co.uk']],
  luukku: ['Luukku (Finland)', ['luukku.com']],
  jubii: ['Jubii Mail (Denmark)', ['jubiimail.dk']],
  online_de: ['1&1 (online.de)', ['online.de']], // ISPDB 1und1.de.xml
  alice_de: ['Alice DSL (Germany)', ['alicedsl.de']],
  epost: ['E-Post (Deutsche Post)', ['epost.de']],
  caramail: ['Caramail', ['caramail.com']],
  email_it: ['Email.it', ['email.it']], // ISPDB email.it.xml
  katamail: ['Katamail (Italy)', ['katamail.com']],
  supereva: ['Supereva (Italy)', ['supereva.it']],
  mixmail: ['Mixmail (Spain)', ['mixmail.com']],
  sapo: ['SAPO Mail (Portugal)', ['sapo.pt']],
  ig: ['iG Mail (Brazil)', ['ig.com.br']],
  arnet: ['Arnet (Argentina)', ['arnet.com.ar']],
  starmedia: ['StarMedia', ['starmedia.com']],
  tpg: ['TPG (Australia)', ['tpg.com.au']],
  dodo: ['Dodo (Australia)', ['dodo.com.au']],
  aapt: ['AAPT (Australia)', ['aapt.net.au']],
  iprimus: ['iPrimus (Australia)', ['iprimus.com.au']],
  netspace: ['Netspace (Australia)', ['netspace.net.au']],
  adam_au: ['Adam Internet (Australia)', ['adam.com.au']],
  versatel: ['Versatel (Netherlands)', ['versatel.nl']],
  zonnet: ['Zonnet (Netherlands)', ['zonnet.nl']],
  scarlet: ['Scarlet (Netherlands)', ['scarlet.nl']],
  solcon: ['Solcon (Netherlands)', ['solcon.nl']],
  quicknet: ['Quicknet (Netherlands)', ['quicknet.nl']],
  utanet: ['UTA (Austria)', ['utanet.at']],
  usa_net: ['USA.NET', ['usa.net']],
  adelphia: ['Adelphia', ['adelphia.net']],
  cable_one: ['Cable One', ['cableone.net']],
  hughesnet: ['HughesNet', ['hughes.net']],
  eudoramail: ['Eudora Web-Mail', ['eudoramail.com']],
  operamail: ['Opera Web Mail', ['operamail.com']],
  incredimail: ['IncrediMail', ['incredimail.com']],
  myway: ['MyWay Mail', ['myway.com']],
  iwon: ['iWon Mail', ['iwon.com']],
  hotbot: ['HotBot Mail', ['hotbot.com']],
  geocities: ['GeoCities', ['geocities.com']],
  care2: ['Care2 Mail', ['care2.com']],
  blackplanet: ['BlackPlanet', ['blackplanet.com']],
  theglobe: ['theglobe.com', ['theglobe.com']],
  zdnetmail: ['ZDNet Mail', ['zdnetmail.com']],
  facebook: ['Facebook Messages (facebook.com addresses, 2010-2014)', ['facebook.com']],
  go_com: ['GO Network Mail (Disney)', ['go.com']],
  fortunecity: ['FortuneCity', ['fortunecity.com']],
  canada_com: ['Canada.com Mail', ['canada.com']],
  latinmail: ['Latinmail', ['latinmail.com']],
  myrealbox: ['myrealbox (Novell)', ['myrealbox.com']],
  softhome: ['SoftHome', ['softhome.net']],
  everyone_net: ['Everyone.net', ['everyone.net']],
  uboot: ['Uboot', ['uboot.com']],
  ivillage: ['iVillage Mail', ['ivillage.com']],
  pisem: ['Pisem.net (Russia)', ['pisem.net']],
  qip: ['QIP.ru Mail', ['qip.ru']],
  chat_ru: ['Chat.ru', ['chat.ru']],
  telkom_id: ['Telkom Indonesia (TelkomNet, Plasa)', ['telkom.net', 'plasa.com']],
  webmail_za: ['Webmail.co.za', ['webmail.co.za']],
  eresmas: ['eresMas (Spain)', ['eresmas.com']],
  teleline: ['Teleline (Telefonica, Spain)', ['teleline.es']],
  jumpy: ['Jumpy (Italy)', ['jumpy.it']],
  sms_at: ['sms.at (Austria)', ['sms.at']],
  hawaiiantel: ['Hawaiian Telcom', ['hawaiiantel.net']],
  gci: ['GCI (Alaska)', ['gci.net']],
  tds: ['TDS Telecom', ['tds.net']],
  ptd: ['PenTeleData', ['ptd.net']], // ISPDB ptd.net.xml
  fuse_net: ['Fuse (Cincinnati Bell)', ['fuse.net']],
  zoominternet: ['Armstrong Zoom Internet', ['zoominternet.net']],
  epix: ['Epix Internet', ['epix.net']],
  openmailbox: ['OpenMailBox', ['openmailbox.org']],
};
