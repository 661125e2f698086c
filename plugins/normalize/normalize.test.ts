import { testPlugin } from '../../test/support/plugin-tester.js';
import normalize from './index.js';

/** Every form of an address no transformation applies to. */
const plain = (email: string) => ({
  base_email: email.toLowerCase(),
  email_lower: email.toLowerCase(),
  without_plus_addressing: null,
  without_dot_variations: null,
  without_punycode: null,
});

const invalid = (emailLower: string | null) => ({
  base_email: null,
  email_lower: emailLower,
  without_plus_addressing: null,
  without_dot_variations: null,
  without_punycode: null,
});

testPlugin(normalize, [
  { email: 'jane@example.com', facts: plain('jane@example.com') },
  { name: 'dots are kept outside gmail', email: 'jane.doe@example.com', facts: plain('jane.doe@example.com') },
  {
    name: 'case: base and email_lower lower-case; the without_* forms keep the local part as written',
    email: 'Jane.Doe@Example.COM',
    facts: { ...plain('jane.doe@example.com') },
  },

  {
    name: 'ideographic full stops are dots: the base is the mailbox on the ASCII name',
    email: 'J.Doe+x@GMAIL。COM',
    facts: { base_email: 'jdoe@gmail.com', email_lower: 'j.doe+x@gmail。com', without_plus_addressing: 'J.Doe@gmail.com' },
  },
  {
    name: 'an IDN written with an ideographic full stop: the base on its A-label',
    email: 'jane@日本語。jp',
    facts: { base_email: 'jane@xn--wgv71a119e.jp', without_punycode: null },
  },
  // Plus addressing.
  {
    email: 'jane+news@example.com',
    facts: { base_email: 'jane@example.com', email_lower: 'jane+news@example.com', without_plus_addressing: 'jane@example.com', without_dot_variations: null },
  },
  {
    name: 'plus tag in capitals: the without form keeps the case, the base does not',
    email: 'Jane+News@Example.com',
    facts: { base_email: 'jane@example.com', email_lower: 'jane+news@example.com', without_plus_addressing: 'Jane@example.com' },
  },
  { name: 'only the first + starts the tag', email: 'a+b+c@example.com', facts: { base_email: 'a@example.com', without_plus_addressing: 'a@example.com' } },
  { name: 'a leading + is no tag (nothing before it)', email: '+tag@example.com', facts: plain('+tag@example.com') },
  { name: 'an empty tag', email: 'jane+@example.com', facts: { base_email: 'jane@example.com', without_plus_addressing: 'jane@example.com' } },
  { name: 'other sub-address separators are not tags', email: 'jane-news@yahoo.com', facts: plain('jane-news@yahoo.com') },

  // Gmail dots, and googlemail.com as gmail.com.
  {
    email: 'j.a.n.e@gmail.com',
    facts: {
      base_email: 'jane@gmail.com',
      email_lower: 'j.a.n.e@gmail.com',
      without_plus_addressing: null,
      without_dot_variations: 'jane@gmail.com',
    },
  },
  {
    email: 'Jane.Doe+Shop@GoogleMail.com',
    facts: {
      base_email: 'janedoe@gmail.com',
      email_lower: 'jane.doe+shop@googlemail.com',
      without_plus_addressing: 'Jane.Doe@googlemail.com',
      without_dot_variations: 'JaneDoe+Shop@gmail.com',
    },
  },
  {
    name: 'googlemail.com without dots still maps to gmail.com',
    email: 'jane@googlemail.com',
    facts: { base_email: 'jane@gmail.com', without_dot_variations: 'jane@gmail.com' },
  },
  { name: 'gmail.com without dots: nothing to remove', email: 'jane@gmail.com', facts: plain('jane@gmail.com') },

  { name: 'dots stay on other providers', email: 'j.ane+x@outlook.com', facts: { base_email: 'j.ane@outlook.com', without_dot_variations: null } },
  {
    name: 'a subdomain of gmail.com is not gmail.com',
    email: 'j.ane@mail.gmail.com',
    facts: { base_email: 'j.ane@mail.gmail.com', without_dot_variations: null },
  },
  { name: 'a look-alike domain is not gmail.com', email: 'j.ane@gmail.co', facts: { base_email: 'j.ane@gmail.co', without_dot_variations: null } },

  // Internationalised domains: the base uses the ASCII (punycode) form, the without_punycode form Unicode.
  {
    email: 'jane@xn--bcher-kva.de',
    facts: { base_email: 'jane@xn--bcher-kva.de', without_punycode: 'jane@bücher.de', without_plus_addressing: null },
  },
  {
    name: 'Unicode domain: the same base as its punycode',
    email: 'jane@bücher.de',
    facts: { base_email: 'jane@xn--bcher-kva.de', email_lower: 'jane@bücher.de', without_punycode: null },
  },
  { name: 'Unicode domain in capitals', email: 'Jane@BÜCHER.de', facts: { base_email: 'jane@xn--bcher-kva.de', email_lower: 'jane@bücher.de' } },
  {
    name: 'punycode domain with a plus tag',
    email: 'Jane+x@XN--BCHER-KVA.de',
    facts: { base_email: 'jane@xn--bcher-kva.de', without_plus_addressing: 'Jane@xn--bcher-kva.de', without_punycode: 'Jane+x@bücher.de' },
  },

  // Unicode local parts: lower-cased with Unicode rules, composed (NFC).
  { email: 'ÄRGER@example.com', facts: { base_email: 'ärger@example.com', email_lower: 'ärger@example.com' } },
  // A decomposed local part is invalid (not NFC, issue 11): no base, but per-IP velocity still composes it.
  { name: 'decomposed é is composed', email: 'Jose\u0301@example.com', facts: { base_email: null, email_lower: 'jos\u00e9@example.com' } },
  {
    email: 'ИВАН+test@example.com',
    facts: { base_email: 'иван@example.com', email_lower: 'иван+test@example.com', without_plus_addressing: 'ИВАН@example.com' },
  },

  // Quoted local parts: "+" and "." are literal text there.
  { email: '"jane+x"@example.com', facts: plain('"jane+x"@example.com') },
  { name: 'quoted on gmail keeps its dots', email: '"j.ane"@gmail.com', facts: { base_email: '"j.ane"@gmail.com', without_dot_variations: null } },

  // Address literals are not gmail and have no punycode.
  { email: 'jane+x@[192.168.0.1]', facts: { base_email: 'jane@[192.168.0.1]', without_plus_addressing: 'jane@[192.168.0.1]', without_punycode: null } },
  { email: 'Jane@[IPv6:2001:DB8::1]', facts: { base_email: 'jane@[ipv6:2001:db8::1]', email_lower: 'jane@[ipv6:2001:db8::1]' } },

  // Invalid addresses: no normalised forms; email_lower still, for per-IP velocity.
  { name: 'no @', email: 'Plain.Address', facts: invalid('plain.address') },
  { name: 'two dots in a row', email: 'J..ane@gmail.com', facts: invalid('j..ane@gmail.com') },
  { name: 'missing domain', email: 'Jane+x@', facts: invalid('jane+x@') },
  { name: 'a root dot is refused by structure', email: 'J.ane@Gmail.com.', facts: invalid('j.ane@gmail.com.') },
  { name: 'empty input', email: '', facts: invalid(null) },
]);
