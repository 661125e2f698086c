import { testPlugin } from '../../test/support/plugin-tester.js';
import exemptList from './index.js';

const lists = { exempt: ['partner.example', 'xn--bcher-kva.de'] };

testPlugin(
  exemptList,
  [
    { name: 'a listed domain', email: 'jane@partner.example', facts: { on_exempt_list: true } },
    { name: 'a subdomain of a listed domain', email: 'jane@eu.partner.example', facts: { on_exempt_list: true } },
    { name: 'capitals', email: 'Jane@PARTNER.example', facts: { on_exempt_list: true } },
    { name: 'an IDN listed in punycode', email: 'jane@bücher.de', facts: { on_exempt_list: true } },
    { name: 'a look-alike', email: 'jane@notpartner.example', facts: { on_exempt_list: false } },
    { name: 'the listed domain inside another', email: 'jane@partner.example.evil.net', facts: { on_exempt_list: false } },
    { name: 'an invalid address: unknown', email: 'jane@@partner.example', facts: { on_exempt_list: null } },
    { name: 'an address literal: unknown', email: 'jane@[192.0.2.1]', facts: { on_exempt_list: null } },
  ],
  { lists },
);

testPlugin(exemptList, [{ name: 'a project without an exempt list', email: 'jane@partner.example', facts: { on_exempt_list: false } }]);
