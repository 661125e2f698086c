// Every command that takes a policy file refuses the two deep policies of issue 46 as `policy check` does:
// exit 3 ("invalid policy") naming the depth limit and the line, and nothing stored (project create|update
// leave the database as it was).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { runCli } from '../support/cli-run.js';
import { DEEP_POLICIES, DEPTH_REFUSAL } from '../support/deep-policies.js';

const saved = process.env.DATABASE_URL;
let dir: string;
let databaseUrl: string;
const files = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-cli-limits-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  process.env.DATABASE_URL = databaseUrl;
  for (const [name, text] of DEEP_POLICIES) {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
    await writeFile(file, text);
    files.set(name, file);
  }
  expect((await runCli('project', 'create', '--name', 'shop', '--json')).code).toBe(0);
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
  await rm(dir, { recursive: true, force: true });
});

const projectNamed = async (name: string) => {
  const store = await openDatabase(databaseUrl);
  try {
    return await store.projects.getByName(name);
  } finally {
    await store.close();
  }
};

describe.each(DEEP_POLICIES.map(([name]) => [name]))('a policy %s', (name) => {
  const file = () => files.get(name) as string;
  /** Exit 3 with the problem at its line, as `policy check` reports any problem. */
  const refused = (r: { code: number; err: string }) => {
    expect(r.code).toBe(3);
    expect(r.err).toMatch(new RegExp(`${file()}:\\d+:\\d+: /: ${DEPTH_REFUSAL}\\n`));
    expect(r.err).toMatch(/invalid policy: 1 problem\(s\)/);
  };

  it('policy check, policy test and policy explain exit 3', async () => {
    refused(await runCli('policy', 'check', file()));
    refused(await runCli('policy', 'test', file()));
    refused(await runCli('policy', 'explain', '--policy', file(), '--email', 'jane@example.com'));
  });

  it('project create exits 3 and creates nothing', async () => {
    refused(await runCli('project', 'create', '--name', 'deep', '--policy', file()));
    expect(await projectNamed('deep')).toBeNull();
  });

  it('project update exits 3 and leaves the stored policy as it was', async () => {
    const before = await projectNamed('shop');
    refused(await runCli('project', 'update', 'shop', '--policy', file()));
    expect(await projectNamed('shop')).toEqual(before);
  });
});
