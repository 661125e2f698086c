// Exemptions (docs/policies.md, Exemptions): who they cover, what they set aside, what still wins, how the
// answer, the explanation and the compiler say so.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import { OFFLINE } from '../../src/network/offline.js';
import { PolicyError } from '../../src/policy/errors.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { renderExplanation } from '../../src/policy/explain.js';
import { loadPolicy } from '../../src/policy/load.js';
import { listReader } from '../support/plugin-tester.js';

const catalog = new FactCatalog(registry);
const VPN = '2.26.157.1';

function compile(yaml: string) {
  return loadPolicy({ name: 't', file: 't.yaml', text: yaml }, catalog);
}

function problemsOf(yaml: string) {
  try {
    compile(yaml);
  } catch (error) {
    if (error instanceof PolicyError) return error.problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`);
    throw error;
  }
  throw new Error('expected the policy to be refused');
}

const base = `version: "1"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  vpn_ip: { mode: soft, action: challenge }
  free_provider_domain: { mode: soft, action: challenge }
rules:
  - name: plus-tag
    conditions: { fact: has_plus_addressing, operator: equal, value: true }
    action: allow_with_review
    warning: plus_tag
`;

async function decide(yaml: string, email: string, ip: { ipv4?: string; ipv6?: string } = {}, lists: Record<string, string[]> = {}) {
  const policy = compile(yaml);
  const input = { email, ipv4: ip.ipv4 ?? null, ipv6: ip.ipv6 ?? null, softCheck: true, projectId: 'p', device: null, fingerprint: null };
  const evaluation = await evaluate(policy, input, { velocity: noHistory, network: OFFLINE, lists: listReader(lists), now: Date.now }, { explain: true });
  return { evaluation, decision: evaluation.decision, steps: await evaluation.steps() };
}

describe('an exemption', () => {
  const partners = `${base}exemptions:
  - name: partners
    when: { domains: [partner.example.com] }
    from: [vpn_ip, free_provider_domain]
`;

  it('sets aside the checks it names, their codes with them, and says it applied in steps', async () => {
    const { decision, steps } = await decide(partners, 'jane@partner.example.com', { ipv4: VPN });
    expect(decision).toMatchObject({ action: 'allow', errors: [], warnings: [], exemptions: ['partners'] });
    expect(decision.exempted.map((v) => v.name)).toEqual(['vpn_ip']);
    expect(steps.at(-1)).toBe('exemption_partners');
  });

  it('covers subdomains, never look-alikes, and leaves everyone else to the checks', async () => {
    expect((await decide(partners, 'jane@eu.partner.example.com', { ipv4: VPN })).decision.action).toBe('allow');
    const other = await decide(partners, 'jane@notpartner.example.com', { ipv4: VPN });
    expect(other.decision).toMatchObject({ action: 'challenge', warnings: ['vpn_detected'], exemptions: [] });
    expect(other.steps).not.toContain('exemption_partners');
  });

  it('leaves a check it does not name to decide: a block still wins, a rule still reports', async () => {
    const broken = await decide(partners, '.jane@partner.example.com', { ipv4: VPN });
    expect(broken.decision).toMatchObject({ action: 'block', errors: ['invalid_address_format'], exemptions: ['partners'] });
    const plus = await decide(partners, 'jane+x@partner.example.com', { ipv4: VPN });
    expect(plus.decision).toMatchObject({ action: 'allow_with_review', warnings: ['plus_tag'] });
  });

  it('from: all sets aside every check and rule, so the default action applies', async () => {
    const all = `${base}exemptions:\n  - name: staff\n    when: { addresses: [ceo@mailinator.com] }\n    from: all\n`;
    const { decision } = await decide(all, 'CEO+tag@mailinator.com', { ipv4: VPN });
    expect(decision).toMatchObject({ action: 'allow', errors: [], warnings: [], fired: [], exemptions: ['staff'] });
    expect(decision.exempted.map((v) => v.name).sort()).toEqual(['disposable_domain', 'plus-tag', 'vpn_ip']);
  });

  it('matches an address by its base address too (no plus tag, no gmail dots)', async () => {
    const yaml = `${base}exemptions:\n  - name: ceo\n    when: { addresses: [janedoe@gmail.com] }\n    from: [free_provider_domain]\n`;
    expect((await decide(yaml, 'Jane.Doe+signup@gmail.com')).decision).toMatchObject({ action: 'allow_with_review', exemptions: ['ceo'] });
    expect((await decide(yaml, 'john@gmail.com')).decision).toMatchObject({ action: 'challenge', exemptions: [] });
  });

  it('matches IPs and networks of both families', async () => {
    const yaml = `${base}exemptions:\n  - name: office\n    when: { ips: [198.51.100.0/24, "2001:db8::/32", 203.0.113.5] }\n    from: [free_provider_domain]\n`;
    for (const ip of [{ ipv4: '198.51.100.77' }, { ipv4: '203.0.113.5' }, { ipv6: '2001:db8:abcd::1' }]) {
      expect((await decide(yaml, 'jane@gmail.com', ip)).decision.exemptions, JSON.stringify(ip)).toEqual(['office']);
    }
    for (const ip of [{ ipv4: '198.51.101.1' }, { ipv4: '203.0.113.6' }, { ipv6: '2001:db9::1' }, {}]) {
      expect((await decide(yaml, 'jane@gmail.com', ip)).decision.exemptions, JSON.stringify(ip)).toEqual([]);
    }
  });

  it("matches the project's exempt list, and any condition; every part given must hold", async () => {
    const yaml = `${base}exemptions:
  - name: listed-from-office
    when:
      project_list: exempt
      conditions: { fact: ipv4_address, operator: inNetworks, value: [198.51.100.0/24] }
    from: [vpn_ip, free_provider_domain]
`;
    const lists = { exempt: ['gmail.com'] };
    expect((await decide(yaml, 'jane@gmail.com', { ipv4: '198.51.100.1' }, lists)).decision).toMatchObject({
      action: 'allow',
      exemptions: ['listed-from-office'],
    });
    expect((await decide(yaml, 'jane@gmail.com', { ipv4: '203.0.113.1' }, lists)).decision).toMatchObject({ action: 'challenge', exemptions: [] });
    expect((await decide(yaml, 'jane@gmail.com', { ipv4: '198.51.100.1' }, {})).decision).toMatchObject({ action: 'challenge', exemptions: [] });
  });

  it('several exemptions set aside the union of what they name', async () => {
    const yaml = `${base}exemptions:
  - { name: a, when: { domains: [gmail.com] }, from: [vpn_ip] }
  - { name: b, when: { domains: [gmail.com] }, from: [free_provider_domain] }
`;
    const { decision } = await decide(yaml, 'jane@gmail.com', { ipv4: VPN });
    expect(decision).toMatchObject({ action: 'allow', warnings: [], exemptions: ['a', 'b'] });
  });

  it('is explained: its entry, what it set aside and why', async () => {
    const { evaluation } = await decide(partners, 'jane@partner.example.com', { ipv4: VPN });
    const explanation = evaluation.explanation!;
    expect(explanation.entries[0]).toMatchObject({ name: 'partners', kind: 'exemption', fired: true, exempts: ['vpn_ip', 'free_provider_domain'] });
    expect(explanation.entries.find((e) => e.name === 'vpn_ip')).toMatchObject({ fired: true, exempted_by: ['partners'] });
    expect(explanation.exemptions).toEqual([{ name: 'partners', set_aside: ['vpn_ip'] }]);
    expect(explanation.why).toBe(
      "nothing fired that an exemption did not set aside: the policy's default_action allow applies; exemption partners set aside vpn_ip",
    );
    const text = renderExplanation(explanation);
    expect(text).toContain('[applied] partners  exemption from vpn_ip, free_provider_domain');
    expect(text).toContain('vpn_ip  check, soft -> challenge (vpn_detected), set aside by exemption partners');
  });
});

describe('the compiler on exemptions', () => {
  it('refuses unknown names in from (with the closest one), a name used twice, entries that are not domains, addresses or networks', () => {
    const yaml = `${base}exemptions:
  - name: a
    when: { domains: ["not a domain"], addresses: [nobody], ips: [300.1.1.1/8] }
    from: [vpn_ipp]
  - name: a
    when: { conditions: { fact: domain_agee, operator: equal, value: 1 } }
    from: all
`;
    expect(problemsOf(yaml)).toEqual([
      '15:23 /exemptions/0/when/domains/0: "not a domain" is not a domain such as partner.example',
      '15:52 /exemptions/0/when/addresses/0: "nobody" is not an address such as jane@partner.example',
      '15:67 /exemptions/0/when/ips/0: "300.1.1.1/8" is not an IP address or a network such as 203.0.113.0/24',
      '16:12 /exemptions/0/from/0: "vpn_ipp" is neither a check nor a free rule of this policy; did you mean "vpn_ip"?',
      '17:11 /exemptions/1/name: exemption name "a" is used twice',
      '18:33 /exemptions/1/when/conditions/fact: unknown fact "domain_agee" (`email-trust facts` lists every fact)',
    ]);
  });

  it('refuses a wildcard domain, saying what to write instead; suggests the policy’s own checks first, and a name cut at a word', () => {
    const yaml = `${base}exemptions:\n  - { name: a, when: { domains: ["*.globex.net"] }, from: [vpn, free_provider_domian] }\n`;
    expect(problemsOf(yaml)).toEqual([
      '14:34 /exemptions/0/when/domains/0: "*.globex.net": write globex.net, which covers its subdomains (no wildcards)',
      '14:60 /exemptions/0/from/0: "vpn" is neither a check nor a free rule of this policy; did you mean "vpn_ip"?',
      '14:65 /exemptions/0/from/1: "free_provider_domian" is neither a check nor a free rule of this policy; did you mean "free_provider_domain"?',
    ]);
    // domain_agee is nearest to domain_age, which the policy does not enable, and to plus-tag, which it has: neither is near
    // enough, so the registry's check is the second guess.
    expect(problemsOf(`${base}exemptions:\n  - { name: a, when: { domains: [x.example.com] }, from: [domain_agee] }\n`)[0]).toContain(
      'did you mean "domain_age"?',
    );
  });

  it('refuses an exemption that says nothing of who it covers', () => {
    expect(problemsOf(`${base}exemptions:\n  - { name: a, when: {}, from: all }\n`)).toEqual([
      expect.stringMatching(/\/exemptions\/0\/when: must NOT have fewer than 1 properties/),
    ]);
  });

  it('takes 50 exemptions and 10,000 domains in one, and refuses one more of either', () => {
    const exemption = (i: number, domains = 1) =>
      `  - { name: e${i}, when: { domains: [${Array.from({ length: domains }, (_, j) => `d${j}.example.com`).join(', ')}] }, from: [vpn_ip] }\n`;
    const many = (n: number) => `${base}exemptions:\n${Array.from({ length: n }, (_, i) => exemption(i)).join('')}`;
    expect(compile(many(50)).exemptions).toHaveLength(50);
    expect(problemsOf(many(51))).toEqual([expect.stringMatching(/\/exemptions: must NOT have more than 50 items/)]);
    expect(compile(`${base}exemptions:\n${exemption(0, 10_000)}`).exemptions).toHaveLength(1);
    expect(problemsOf(`${base}exemptions:\n${exemption(0, 10_001)}`)).toEqual([
      expect.stringMatching(/\/exemptions\/0\/when\/domains: must NOT have more than 10000 items/),
    ]);
  });
});

describe('compiler warnings', () => {
  it('warns, at the place, of an exemption naming a check that is not enabled, a disabled check given options, and a fact that is always null', () => {
    const yaml = `version: "1"
checks:
  vpn_ip: { mode: soft, action: challenge }
  specific_domains: { enabled: false, options: { domains: [partner.example.com] } }
rules:
  - name: partner
    conditions: { fact: in_specific_domains, operator: equal, value: true }
    action: allow
exemptions:
  - { name: p, when: { domains: [partner.example.com] }, from: [vpn_ip, domain_age] }
`;
    const policy = compile(yaml);
    expect(policy.warnings.map((w) => `${w.line}:${w.column} ${w.path}: ${w.message}`)).toEqual([
      '4:48 /checks/specific_domains/options: check specific_domains is disabled (enabled: false), so these options are not used: remove them, or enable the check',
      '7:25 /rules/0/conditions/fact: fact in_specific_domains is always null unless check specific_domains is enabled (its options hold what the fact is computed from), so this never holds: enable specific_domains (action: none keeps it from deciding)',
      '10:73 /exemptions/0/from/1: check domain_age is not enabled in this policy, so exemption p sets nothing aside for it',
    ]);
  });

  it('none for the shipped policies', () => {
    for (const name of ['default', 'b2b-only', 'strict-signup', 'lenient-newsletter']) {
      const policy = loadPolicy({ name, file: new URL(`../../policies/${name}.yaml`, import.meta.url).pathname }, catalog);
      expect(policy.warnings, name).toEqual([]);
    }
  });
});
