import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import tld from './index.js';

const none = { has_valid_tld: null, tld_special_use: null, tld: null, public_suffix: null, registrable_domain: null };

const cases: PluginCase[] = [
  {
    email: 'user@example.com',
    facts: { has_valid_tld: true, tld_special_use: null, tld: 'com', public_suffix: 'com', registrable_domain: 'example.com' },
    fires: [],
  },
  { email: 'a@mail.example.com', facts: { has_valid_tld: true, tld: 'com', registrable_domain: 'example.com' }, fires: [] },
  { email: 'a@example.co.uk', facts: { has_valid_tld: true, tld: 'uk', public_suffix: 'co.uk', registrable_domain: 'example.co.uk' }, fires: [] },
  { email: 'a@x.y.example.co.uk', facts: { public_suffix: 'co.uk', registrable_domain: 'example.co.uk' }, fires: [] },
  { email: 'Bob@EXAMPLE.ORG', facts: { has_valid_tld: true, tld: 'org', registrable_domain: 'example.org' }, fires: [] },
  {
    name: 'ICANN section only: github.io is not a public suffix',
    email: 'a@user.github.io',
    facts: { has_valid_tld: true, tld: 'io', public_suffix: 'io', registrable_domain: 'github.io' },
    fires: [],
  },
  { email: 'a@bucket.s3.amazonaws.com', facts: { public_suffix: 'com', registrable_domain: 'amazonaws.com' }, fires: [] },
  {
    name: 'unknown TLD: default rule makes the last label the suffix',
    email: 'a@example.invalidtld',
    facts: { has_valid_tld: false, tld_special_use: null, tld: 'invalidtld', public_suffix: 'invalidtld', registrable_domain: 'example.invalidtld' },
    fires: ['tld'],
  },
  {
    email: 'a@localhost',
    facts: { has_valid_tld: false, tld_special_use: 'localhost', tld: 'localhost', public_suffix: 'localhost', registrable_domain: null },
    fires: ['tld'],
  },
  { email: 'a@printer.local', facts: { has_valid_tld: false, tld_special_use: 'local', tld: 'local', registrable_domain: 'printer.local' }, fires: ['tld'] },
  // Special-use names (RFC 6761, 6762, 7686, 9476; .internal; .arpa has no mailboxes): refused, the two the
  // Public Suffix List's ICANN section holds (onion, arpa) included.
  { email: 'me@test.test.test', facts: { has_valid_tld: false, tld_special_use: 'test', registrable_domain: 'test.test' }, fires: ['tld'] },
  { email: 'jane@fraud-ring.example', facts: { has_valid_tld: false, tld_special_use: 'example' }, fires: ['tld'] },
  { email: 'me@valid.invalid', facts: { has_valid_tld: false, tld_special_use: 'invalid' }, fires: ['tld'] },
  { email: 'me@host.localhost', facts: { has_valid_tld: false, tld_special_use: 'localhost', registrable_domain: 'host.localhost' }, fires: ['tld'] },
  {
    name: 'onion: in the ICANN section, refused all the same (RFC 7686)',
    email: 'me@duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion',
    facts: { has_valid_tld: false, tld_special_use: 'onion', tld: 'onion', public_suffix: 'onion' },
    fires: ['tld'],
  },
  {
    name: 'onion, as python-email-validator tests it',
    email: 'me@onion.onion.onion',
    facts: { has_valid_tld: false, tld_special_use: 'onion' },
    fires: ['tld'],
  },
  {
    name: 'arpa: infrastructure, no mailbox (RFC 3172)',
    email: 'me@anything.arpa',
    facts: { has_valid_tld: false, tld_special_use: 'arpa', tld: 'arpa', registrable_domain: 'anything.arpa' },
    fires: ['tld'],
  },
  {
    name: 'arpa under a longer suffix',
    email: 'me@router.home.arpa',
    facts: { has_valid_tld: false, tld_special_use: 'arpa', public_suffix: 'home.arpa', registrable_domain: 'router.home.arpa' },
    fires: ['tld'],
  },
  { name: 'alt (RFC 9476)', email: 'me@name.alt', facts: { has_valid_tld: false, tld_special_use: 'alt' }, fires: ['tld'] },
  { name: 'internal (ICANN, 2024)', email: 'me@corp.internal', facts: { has_valid_tld: false, tld_special_use: 'internal' }, fires: ['tld'] },
  { name: 'upper case', email: 'ME@HOST.ONION', facts: { has_valid_tld: false, tld_special_use: 'onion' }, fires: ['tld'] },
  {
    name: 'a special-use word left of the TLD is no special-use TLD',
    email: 'me@test.example.com',
    facts: { has_valid_tld: true, tld_special_use: null, registrable_domain: 'example.com' },
    fires: [],
  },
  {
    name: 'a retired ccTLD is not delegated, and no special-use name',
    email: 'jane@mail.yu',
    facts: { has_valid_tld: false, tld_special_use: null, tld: 'yu' },
    fires: ['tld'],
  },
  { email: 'a@example.123', facts: { has_valid_tld: false, tld: '123' }, fires: ['tld'] },
  {
    name: 'the domain is itself a public suffix',
    email: 'a@co.uk',
    facts: { has_valid_tld: true, public_suffix: 'co.uk', registrable_domain: null },
    fires: [],
  },
  { name: 'wildcard rule *.ck', email: 'a@foo.ck', facts: { has_valid_tld: true, tld: 'ck', public_suffix: 'foo.ck', registrable_domain: null }, fires: [] },
  { name: 'exception rule !www.ck', email: 'a@www.ck', facts: { tld: 'ck', public_suffix: 'ck', registrable_domain: 'www.ck' }, fires: [] },
  {
    name: 'IDN domain is judged in ASCII form',
    email: 'josé@exämple.com',
    facts: { has_valid_tld: true, tld: 'com', registrable_domain: 'xn--exmple-cua.com' },
    fires: [],
  },
  {
    name: 'IDN TLD',
    email: 'a@例子.中国',
    facts: { has_valid_tld: true, tld: 'xn--fiqs8s', public_suffix: 'xn--fiqs8s', registrable_domain: 'xn--fsqu00a.xn--fiqs8s' },
    fires: [],
  },
  {
    name: 'undecodable punycode label still has a TLD',
    email: 'a@xn--zz.com',
    facts: { has_valid_tld: true, tld: 'com', registrable_domain: 'xn--zz.com' },
    fires: [],
  },
  { name: 'wildcard label does not hide the TLD', email: 'a@*.example.com', facts: { has_valid_tld: true, registrable_domain: 'example.com' }, fires: [] },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', facts: none, fires: [] },
  { name: 'IPv6 literal', email: 'a@[IPv6:2001:db8::1]', facts: none, fires: [] },
  { name: 'bare IPv4 address is not a name', email: 'a@192.168.0.1', facts: none, fires: [] },
  { name: 'a space is no host name', email: 'a@exa mple.com', facts: none, fires: [] },
  { name: 'a path is no host name', email: 'a@example.com/x', facts: none, fires: [] },
  { name: 'trailing root dot', email: 'a@example.com.', facts: { has_valid_tld: true, tld: 'com', registrable_domain: 'example.com' }, fires: [] },
  { name: 'no @', email: 'plainaddress', facts: none, fires: [] },
  { name: 'empty domain', email: 'a@', facts: none, fires: [] },
];

testPlugin(tld, cases);
