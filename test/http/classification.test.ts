// Classification flags, typo and fraud-pattern codes over HTTP: each appears only when its check is
// enabled, with the action and codes its mode gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

let server: TestServer;
const FLAGS = {
  free_provider_domain: 'is_free_provider_domain',
  role_based_address: 'is_role_based_domain',
  disposable_domain: 'is_disposable_domain',
  known_abuse_domain: 'is_known_abuse_domain',
  spam_trap_domain: 'is_spam_trap_domain',
  education_domain: 'is_education_domain',
  government_domain: 'is_government_domain',
} as const;
type Check = keyof typeof FLAGS;

beforeAll(async () => {
  server = await startService();
});
afterAll(() => server.close());

let projects = 0;
async function projectWith(checks: string): Promise<CreatedProject> {
  projects += 1;
  return server.createProject({ name: `classify-${projects}`, policyYaml: `version: "1.0"\nchecks:\n${checks}` });
}

function verify(project: CreatedProject, email: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return post(server.url, '/v1/public/verify', { email_address: email, ...extra }, bearer(project.keys.access_token));
}

describe('classification flags', () => {
  it.each<[Check, string, string]>([
    ['free_provider_domain', 'jane@gmail.com', 'jane@example.com'],
    ['role_based_address', 'no-reply@example.com', 'jane@example.com'],
    ['disposable_domain', 'x@mailinator.com', 'jane@gmail.com'],
    ['education_domain', 'student@cs.mit.edu', 'jane@gmail.com'],
    ['government_domain', 'clerk@hmrc.gov.uk', 'jane@governor.com'],
  ])('%s: its flag only when enabled, true for %s and false for %s', async (check, yes, no) => {
    const flag = FLAGS[check];
    const enabled = await projectWith(`  ${check}: { mode: soft, action: allow_with_review }\n`);
    expect((await verify(enabled, yes)).body).toEqual({ action: 'allow_with_review', [flag]: true });
    expect((await verify(enabled, no)).body).toEqual({ action: 'allow', [flag]: false });

    const other = check === 'free_provider_domain' ? 'role_based_address' : 'free_provider_domain';
    const without = await projectWith(`  ${other}: { mode: soft }\n`);
    const res = await verify(without, yes, { show_results: true });
    expect(res.body).not.toHaveProperty(flag);
    expect(res.body.checked_types).not.toContain(check);
  });

  it('known_abuse_domain and spam_trap_domain flag the domains a project adds', async () => {
    const project = await projectWith(
      '  known_abuse_domain: { mode: hard, options: { add: [abuse.example] } }\n  spam_trap_domain: { mode: hard, options: { add: [trap.example] } }\n',
    );
    expect((await verify(project, 'a@mx.abuse.example')).body).toEqual({ action: 'block', is_known_abuse_domain: true, is_spam_trap_domain: false });
    expect((await verify(project, 'a@trap.example')).body).toEqual({ action: 'block', is_known_abuse_domain: false, is_spam_trap_domain: true });
    expect((await verify(project, 'a@example.com')).body).toEqual({ action: 'allow', is_known_abuse_domain: false, is_spam_trap_domain: false });
  });

  it('disposable_domain in hard mode blocks, and lists its checked type', async () => {
    const project = await projectWith('  disposable_domain: { mode: hard }\n');
    const res = await verify(project, 'x@sub.mailinator.com', { show_results: true });
    expect(res.body).toMatchObject({
      action: 'block',
      is_disposable_domain: true,
      errors: ['domain_is_disposable'],
      warnings: [],
      checked_types: ['disposable_domain'],
    });
  });
});

describe('typo detection', () => {
  it('soft mode: allow, corrected_email, warning domain_typo_detected', async () => {
    const project = await projectWith('  typo_detection: { mode: soft }\n');
    const res = await verify(project, 'jane@gmial.com', { show_results: true });
    expect(res.body).toMatchObject({
      action: 'allow',
      corrected_email: 'jane@gmail.com',
      errors: [],
      warnings: ['domain_typo_detected'],
      checked_types: ['typo_detection'],
    });
  });

  it('hard mode: block, corrected_email, error domain_typo_detected', async () => {
    const project = await projectWith('  typo_detection: { mode: hard }\n');
    const res = await verify(project, 'jane@hotmial.co.uk', { show_results: true });
    expect(res.body).toMatchObject({ action: 'block', corrected_email: 'jane@hotmail.co.uk', errors: ['domain_typo_detected'], warnings: [] });
  });

  it('never corrects a real provider, and shows corrected_email only with show_results', async () => {
    const project = await projectWith('  typo_detection: { mode: hard }\n');
    const real = await verify(project, 'jane@mail.com', { show_results: true });
    expect(real.body).toMatchObject({ action: 'allow', errors: [] });
    expect(real.body).not.toHaveProperty('corrected_email');
    expect((await verify(project, 'jane@gmial.com')).body).toEqual({ action: 'block' });
  });
});

describe('typos beat the disposable list (default policy)', () => {
  it.each([
    ['jane@gmial.com', 'jane@gmail.com'],
    ['Jane.Doe@hotmial.com', 'Jane.Doe@hotmail.com'],
  ])('%s is challenged with corrected_email and the typo code, not blocked', async (email, corrected) => {
    const project = await server.createProject({ name: `typo-default-${email}` });
    const res = await verify(project, email, { show_results: true });
    expect(res.body).toMatchObject({
      action: 'challenge',
      is_disposable_domain: true,
      corrected_email: corrected,
      errors: [],
      warnings: ['domain_typo_detected'],
    });
  });

  it('a throwaway service two slips from a provider is still blocked', async () => {
    const project = await server.createProject({ name: 'typo-default-throwaway' });
    const res = await verify(project, 'jane@4mail.cf', { show_results: true });
    expect(res.body).toMatchObject({ action: 'block', is_disposable_domain: true });
  });
});

describe('fraud pattern', () => {
  it('soft mode warns fraud_pattern_detected on a machine-made local part, not on a name', async () => {
    const project = await projectWith('  fraud_pattern_detection: { mode: soft, action: challenge }\n');
    expect((await verify(project, 'x7kq2m9vz3p8@example.com', { show_results: true })).body).toMatchObject({
      action: 'challenge',
      warnings: ['fraud_pattern_detected'],
    });
    expect((await verify(project, 'john.smith@example.com', { show_results: true })).body).toMatchObject({ action: 'allow', warnings: [] });
  });
});

describe('allowed domains', () => {
  it('specific_domains blocks a domain outside the list with not_in_specific_domains', async () => {
    const project = await projectWith('  specific_domains: { mode: hard, options: { domains: [acme.com] } }\n');
    expect((await verify(project, 'a@acme.com', { show_results: true })).body).toMatchObject({ action: 'allow', errors: [] });
    expect((await verify(project, 'a@sales.acme.com', { show_results: true })).body).toMatchObject({ action: 'allow', errors: [] });
    expect((await verify(project, 'a@gmail.com', { show_results: true })).body).toMatchObject({ action: 'block', errors: ['not_in_specific_domains'] });
  });
});
