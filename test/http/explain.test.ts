// show_explain on POST /v1/public/verify: sandbox projects and EXPLAIN_PROJECTS only; the explanation shows
// each check and rule with the fact values its conditions saw, unknown facts with the on_unknown that
// applied, and why the action won.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let shop: CreatedProject;
let trusted: CreatedProject;
let lab: CreatedProject;
let strictMx: CreatedProject;
let rulesOnly: CreatedProject;
let nothing: CreatedProject;

// Network checks are off in tests: mx_record's facts are unknown, so its on_unknown decides.
const STRICT_MX = `version: "1.0"
checks:
  disposable_domain: { mode: hard }
  mx_record: { mode: soft, on_unknown: block }
`;

// The cheap fact is tested first: when it fails, the I/O fact after it is never evaluated.
const RULES_ONLY = `version: "1.0"
default_action: allow_with_review
checks:
  free_provider_domain: { mode: soft, action: allow }
rules:
  - name: free_and_no_mx
    conditions:
      all:
        - { fact: is_free_provider_domain, operator: equal, value: true }
        - { fact: mx_record_count, operator: equal, value: 0 }
    action: challenge
    warning: free_without_mx
`;

beforeAll(async () => {
  server = await startService({ env: { EXPLAIN_PROJECTS: ' trusted , someone-else' } });
  shop = await server.createProject({ name: 'shop' });
  trusted = await server.createProject({ name: 'trusted' });
  lab = await server.createProject({ name: 'lab', sandbox: true });
  strictMx = await server.createProject({ name: 'strict-mx', sandbox: true, policyYaml: STRICT_MX });
  rulesOnly = await server.createProject({ name: 'rules-only', sandbox: true, policyYaml: RULES_ONLY });
  nothing = await server.createProject({ name: 'nothing', sandbox: true, policyYaml: 'version: "1.0"\n' });
});
afterAll(() => server.close());

const verify = (project: CreatedProject, body: Record<string, unknown>): Promise<Reply> =>
  post(server.url, '/v1/public/verify', body, bearer(project.keys.access_token));

// biome-ignore lint/suspicious/noExplicitAny: read field by field
const entry = (res: Reply, name: string): any => res.body.explain.entries.find((e: { name: string }) => e.name === name);

describe('who may ask for show_explain', () => {
  it.each([
    ['a sandbox project', 200, () => lab],
    ['a project named in EXPLAIN_PROJECTS', 200, () => trusted],
    ['any other project', 400, () => shop],
  ])('%s → %i', async (_what, status, project) => {
    const res = await verify(project(), { email_address: 'jane@example.com', show_explain: true });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.body.explain).toMatchObject({ policy: 'default', action: res.body.action });
    else {
      expect(res.body.error).toContain('show_explain');
      expect(res.body.error).toContain('sandbox');
      expect(res.body.error).toContain('EXPLAIN_PROJECTS');
    }
  });

  it('adds no explain unless asked, even for a sandbox project', async () => {
    const res = await verify(lab, { email_address: 'jane@example.com', show_results: true });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('explain');
  });

  it('refuses a show_explain that is not a boolean (400 naming the field)', async () => {
    const res = await verify(lab, { email_address: 'jane@example.com', show_explain: 'yes' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('show_explain');
  });
});

describe('the explanation', () => {
  it('shows the block, the condition that fired with its fact value, and why block won', async () => {
    const res = await verify(lab, { email_address: 'jane@mailinator.com', show_explain: true });
    expect(res.body.action).toBe('block');
    const { explain } = res.body;
    expect(explain.decided_by).toBe('severity');
    expect(explain.contributions).toContainEqual({ name: 'disposable_domain', action: 'block' });
    expect(explain.why).toMatch(/^block is the most severe action that fired, from disposable_domain/);
    expect(explain.severity_order[0]).toBe('block');
    expect(explain.severity_order.at(-1)).toBe('none');
    const disposable = entry(res, 'disposable_domain');
    expect(disposable).toMatchObject({ kind: 'check', mode: 'hard', fired: true, action: 'block', code: 'domain_is_disposable' });
    expect(disposable.conditions.held).toBe(true);
    expect(JSON.stringify(disposable.conditions)).toContain('{"fact":"is_disposable_domain","operator":"equal","value":true,"held":true,"saw":true}');
    // A check that did not fire shows what it saw.
    expect(entry(res, 'structure')).toMatchObject({
      fired: false,
      conditions: { fact: 'valid_address_format', operator: 'equal', value: false, saw: true, held: false },
    });
  });

  it('shows an unknown fact as unknown, with the on_unknown that applied', async () => {
    const res = await verify(strictMx, { email_address: 'jane@example.com', show_explain: true });
    expect(res.body.action).toBe('block');
    const mx = entry(res, 'mx_record');
    expect(mx.fired).toBe(false);
    expect(mx.on_unknown).toEqual({ action: 'block', unknown_facts: expect.arrayContaining(['mx_record_status']), fired: true });
    expect(JSON.stringify(mx.conditions)).toContain(
      '"fact":"mx_record_status","operator":"equal","value":"invalid","held":false,"saw":"not_checked","unknown":true',
    );
    expect(res.body.explain.contributions).toEqual([{ name: 'on_unknown:mx_record', action: 'block' }]);
    expect(res.body.explain.why).toContain('from on_unknown:mx_record');
    expect(entry(res, 'disposable_domain')).toMatchObject({ fired: false });
  });

  it('shows a free rule, a condition left unevaluated, and the default action when nothing fired', async () => {
    const res = await verify(rulesOnly, { email_address: 'jane@example.com', show_explain: true });
    expect(res.body.action).toBe('allow_with_review');
    expect(res.body.explain).toMatchObject({ decided_by: 'default_action', contributions: [] });
    expect(res.body.explain.why).toContain('default_action allow_with_review');
    const rule = entry(res, 'free_and_no_mx');
    expect(rule).toMatchObject({ kind: 'rule', fired: false, action: 'challenge', code: 'free_without_mx' });
    expect(rule.conditions).toEqual({
      all: [
        { fact: 'is_free_provider_domain', operator: 'equal', value: true, saw: false, held: false },
        { fact: 'mx_record_count', operator: 'equal', value: 0, held: null },
      ],
      held: false,
    });
  });

  it('names the winner and what it outranks when several actions fired', async () => {
    const res = await verify(rulesOnly, { email_address: 'jane@gmail.com', show_explain: true });
    // mx_record_count is unknown with network checks off, so the rule does not fire; the check does.
    expect(res.body.action).toBe('allow');
    expect(res.body.explain).toMatchObject({ decided_by: 'severity', contributions: [{ name: 'free_provider_domain', action: 'allow' }] });
    expect(entry(res, 'free_and_no_mx').conditions.all[1]).toEqual({
      fact: 'mx_record_count',
      operator: 'equal',
      value: 0,
      saw: null,
      unknown: true,
      held: false,
    });
  });

  it('says so when the policy enables nothing', async () => {
    const res = await verify(nothing, { email_address: 'jane@example.com', show_explain: true });
    expect(res.body.action).toBe('none');
    expect(res.body.explain).toMatchObject({ decided_by: 'no_checks', entries: [], contributions: [] });
  });
});
