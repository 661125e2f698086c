import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import subdomain from './index.js';

const noSubdomain = {
  subdomain_count: 0,
  nesting_depth: 0,
  subdomain_has_wildcard: false,
  subdomain_has_hyphen: false,
  subdomain_has_numeric: false,
  subdomain_has_numeric_label: false,
  subdomain_has_uuid: false,
  subdomain_entropy: 'none',
  subdomain_entropy_bits: 0,
  random_subdomain_signal: 'none',
  deep_nesting_risk_signal: 'none',
  uuid_subdomain_risk_signal: 'none',
};

const unknown = Object.fromEntries(Object.keys(noSubdomain).map((fact) => [fact, null]));

const cases: PluginCase[] = [
  { email: 'a@example.com', facts: noSubdomain, fires: [] },
  { email: 'a@example.co.uk', facts: noSubdomain, fires: [] },
  {
    email: 'a@mail.example.com',
    facts: {
      ...noSubdomain,
      subdomain_count: 1,
      nesting_depth: 1,
      subdomain_entropy: 'low',
      subdomain_entropy_bits: 2,
    },
    fires: ['subdomain_single'],
  },
  { email: 'a@x.y.example.co.uk', facts: { subdomain_count: 2, nesting_depth: 2, deep_nesting_risk_signal: 'none' }, fires: ['subdomain_double'] },
  { email: 'a@a.b.c.example.com', facts: { subdomain_count: 3, deep_nesting_risk_signal: 'none', subdomain_entropy: 'low' }, fires: ['subdomain_triple'] },
  { email: 'a@a.b.c.d.example.com', facts: { subdomain_count: 4, nesting_depth: 4, deep_nesting_risk_signal: 'detected' }, fires: ['subdomain_deeply_nested'] },
  { email: 'a@a.b.c.d.e.f.example.com', facts: { subdomain_count: 6, deep_nesting_risk_signal: 'detected' }, fires: ['subdomain_deeply_nested'] },
  {
    name: 'min_depth 5 raises the deep-nesting threshold',
    email: 'a@a.b.c.d.example.com',
    options: { subdomain_deeply_nested: { min_depth: 5 } },
    facts: { subdomain_count: 4, deep_nesting_risk_signal: 'none' },
    fires: [],
  },
  {
    name: 'min_depth 3 lowers it',
    email: 'a@a.b.c.example.com',
    options: { subdomain_deeply_nested: { min_depth: 3 } },
    facts: { deep_nesting_risk_signal: 'detected' },
    fires: ['subdomain_deeply_nested', 'subdomain_triple'],
  },
  {
    name: 'UUID label',
    email: 'a@550e8400-e29b-41d4-a716-446655440000.example.com',
    facts: {
      subdomain_count: 1,
      subdomain_has_uuid: true,
      subdomain_has_hyphen: true,
      uuid_subdomain_risk_signal: 'detected',
      random_subdomain_signal: 'none',
      subdomain_entropy: 'medium',
      subdomain_entropy_bits: 3.391,
    },
    fires: ['subdomain_hyphenated', 'subdomain_single', 'subdomain_uuid_hash'],
  },
  {
    name: 'md5 label',
    email: 'a@d41d8cd98f00b204e9800998ecf8427e.example.com',
    facts: { subdomain_has_uuid: true, uuid_subdomain_risk_signal: 'detected' },
    fires: ['subdomain_single', 'subdomain_uuid_hash'],
  },
  {
    name: 'UUID in capitals (structure lower-cases)',
    email: 'a@550E8400-E29B-41D4-A716-446655440000.mail.example.com',
    facts: { subdomain_count: 2, subdomain_has_uuid: true },
    fires: ['subdomain_double', 'subdomain_hyphenated', 'subdomain_uuid_hash'],
  },
  { name: '15 hex characters is not a hash', email: 'a@d41d8cd98f00b20.example.com', facts: { subdomain_has_uuid: false }, fires: ['subdomain_single'] },
  {
    name: 'all-digit 16 characters is numeric, not a hash',
    email: 'a@1234567890123456.example.com',
    facts: { subdomain_has_uuid: false, subdomain_has_numeric: true, subdomain_has_numeric_label: true },
    fires: ['subdomain_numeric', 'subdomain_single'],
  },
  {
    name: 'random token label',
    email: 'a@x7kq2m9vz3p8.example.com',
    facts: { random_subdomain_signal: 'detected', subdomain_entropy: 'high', subdomain_entropy_bits: 3.585, subdomain_has_uuid: false },
    fires: ['subdomain_single'],
  },
  {
    name: 'consonant soup',
    email: 'a@bcdfghjkmn.example.com',
    facts: { random_subdomain_signal: 'detected', subdomain_entropy: 'medium' },
    fires: ['subdomain_single'],
  },
  {
    name: 'random label below others',
    email: 'a@x7kq2m9vz3p8.mail.example.com',
    facts: { subdomain_count: 2, random_subdomain_signal: 'detected' },
    fires: ['subdomain_double'],
  },
  {
    name: 'a word is not random',
    email: 'a@marketing.example.com',
    facts: { random_subdomain_signal: 'none', subdomain_entropy: 'medium' },
    fires: ['subdomain_single'],
  },
  {
    name: 'host name with a number is not random',
    email: 'a@smtp-relay01.example.com',
    facts: { random_subdomain_signal: 'none', subdomain_has_hyphen: true },
    fires: ['subdomain_hyphenated', 'subdomain_single'],
  },
  { name: 'short mixed label is not random', email: 'a@x7k2.example.com', facts: { random_subdomain_signal: 'none' }, fires: ['subdomain_single'] },
  {
    email: 'a@k8s-cluster-01.example.com',
    facts: { random_subdomain_signal: 'none', subdomain_has_numeric: true, subdomain_has_numeric_label: false },
    fires: ['subdomain_hyphenated', 'subdomain_single'],
  },
  {
    email: 'a@123.example.com',
    facts: { subdomain_has_numeric: true, subdomain_has_numeric_label: true, subdomain_count: 1 },
    fires: ['subdomain_numeric', 'subdomain_single'],
  },
  { email: 'a@mail2.example.com', facts: { subdomain_has_numeric: true, subdomain_has_numeric_label: false }, fires: ['subdomain_single'] },
  { email: 'a@my-host.example.com', facts: { subdomain_has_hyphen: true, subdomain_has_wildcard: false }, fires: ['subdomain_hyphenated', 'subdomain_single'] },
  {
    name: 'hyphen in the registrable domain is not a subdomain trait',
    email: 'a@mail.my-company.com',
    facts: { subdomain_has_hyphen: false },
    fires: ['subdomain_single'],
  },
  { email: 'a@*.example.com', facts: { subdomain_has_wildcard: true, subdomain_count: 1 }, fires: ['subdomain_single', 'subdomain_wildcard'] },
  { email: 'a@mx*.example.com', facts: { subdomain_has_wildcard: true }, fires: ['subdomain_single', 'subdomain_wildcard'] },
  {
    name: 'ICANN only: github.io is not a public suffix',
    email: 'a@user.github.io',
    facts: { subdomain_count: 1, nesting_depth: 1 },
    fires: ['subdomain_single'],
  },
  {
    name: 'IDN label judged in Unicode (no xn-- hyphen)',
    email: 'a@xn--bcher-kva.example.com',
    facts: { subdomain_count: 1, subdomain_has_hyphen: false, random_subdomain_signal: 'none' },
    fires: ['subdomain_single'],
  },
  {
    name: 'Unicode subdomain',
    email: 'a@bücher.example.com',
    facts: { subdomain_count: 1, subdomain_has_hyphen: false, subdomain_entropy_bits: 2.585 },
    fires: ['subdomain_single'],
  },
  { name: 'IDN registrable domain', email: 'a@mail.exämple.com', facts: { subdomain_count: 1 }, fires: ['subdomain_single'] },
  { name: 'trailing root dot', email: 'a@mail.example.com.', facts: { subdomain_count: 1 }, fires: ['subdomain_single'] },
  { name: 'unknown TLD still splits', email: 'a@mail.corp.invalidtld', facts: { subdomain_count: 1 }, fires: ['subdomain_single'] },
  { name: 'domain is a public suffix: unknown', email: 'a@co.uk', facts: unknown, fires: [] },
  { name: 'single label: unknown', email: 'a@localhost', facts: unknown, fires: [] },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', facts: unknown, fires: [] },
  { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
];

testPlugin(subdomain, cases);
