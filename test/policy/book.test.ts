// The policy book on real folders: a name in POLICIES_DIR shadows the shipped one, the others stay; a
// reload reports each changed file once (a failing text is not reported again at the next reload), keeps a
// deleted file's policy and says so once; every project's policy resolves or is named with what to do.
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { policyRevision } from '../../src/policy/load.js';
import type { ReloadOutcome } from '../../src/policy/named-policies.js';
import { fixturePolicy } from '../http/contract.js';

const catalog = new FactCatalog(registry);
const SOFT = fixturePolicy('plus-soft');
const HARD = fixturePolicy('plus-hard');
const revisionOf = policyRevision;

let dir: string;
let book: PolicyBook;
const told: ReloadOutcome[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-book-'));
  await writeFile(join(dir, 'default.yaml'), SOFT);
  await writeFile(join(dir, 'signup.yaml'), HARD);
  book = PolicyBook.load(dir, catalog);
  book.onReload((outcome) => told.push(outcome));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('POLICIES_DIR first, the shipped policies second', () => {
  it('serves every shipped name, with POLICIES_DIR shadowing the one it shares', () => {
    expect(book.folders).toEqual([dir, policiesDir]);
    expect(book.names()).toEqual(['b2b-only', 'default', 'lenient-newsletter', 'signup', 'strict-signup']);
    expect(book.byName('default')?.revision).toBe(revisionOf(SOFT));
    expect(book.activeRevisions().named).toMatchObject({ default: { from: 'POLICIES_DIR' }, 'strict-signup': { from: 'shipped' } });
  });

  it('loads only the shipped folder when it is the folder given', () => {
    expect(PolicyBook.load(policiesDir, catalog).folders).toEqual([policiesDir]);
  });
});

describe('reloading the folders', () => {
  it('reports a failing text once, keeps the policy in use, and loads the fixed text', async () => {
    await writeFile(join(dir, 'signup.yaml'), fixturePolicy('invalid-mode'));
    expect(book.reloadFolders()).toMatchObject([{ policy: 'signup', result: 'failed', previous: revisionOf(HARD) }]);
    expect(book.reloadFolders()).toEqual([]);
    expect(book.byName('signup')?.revision).toBe(revisionOf(HARD));
    await writeFile(join(dir, 'signup.yaml'), SOFT);
    expect(book.reloadFolders()).toMatchObject([{ policy: 'signup', result: 'loaded', previous: revisionOf(HARD), revision: revisionOf(SOFT) }]);
    expect(told.map((o) => o.result)).toEqual(['failed', 'loaded']);
  });

  it("keeps a deleted file's policy, says so once, and falls back to a shipped one of the same name", async () => {
    await unlink(join(dir, 'signup.yaml'));
    const [gone] = book.reloadFolders();
    expect(gone).toMatchObject({ policy: 'signup', result: 'failed', previous: revisionOf(SOFT) });
    expect(gone?.problems[0]?.message).toMatch(/the file is gone: its loaded revision stays in use until a restart/);
    expect(book.reloadFolders()).toEqual([]);
    expect(book.byName('signup')?.revision).toBe(revisionOf(SOFT));
    expect(book.resolveProjects([{ id: 'p1', name: 'shop', policy: 'signup' }])).toMatchObject([{ project: 'shop', policy: 'signup' }]);

    await unlink(join(dir, 'default.yaml'));
    expect(book.reloadFolders()).toMatchObject([{ policy: 'default', result: 'loaded', previous: revisionOf(SOFT) }]);
    expect(book.activeRevisions().named.default?.from).toBe('shipped');
  });
});

describe("projects' policies", () => {
  it('names a project whose policy is nowhere, and what to do', () => {
    const [missing] = book.resolveProjects([{ id: 'p2', name: 'lost', policy: 'gone' }]);
    expect(missing?.reason).toMatch(
      /^project "lost" uses policy "gone", which is neither in POLICIES_DIR \(.+\) nor in the shipped policies \(known: .+\); add gone\.yaml to POLICIES_DIR, or point the project at another policy: email-trust project update lost --policy NAME\|FILE$/,
    );
    expect(() => book.forProject({ id: 'p2', name: 'lost', policy: 'gone' })).toThrow(/project "lost" uses policy "gone"/);
  });

  it('keeps the stored policy a project was last decided by when a new stored text fails', () => {
    const project = { id: 'p3', name: 'stored', policy: 'stored' };
    expect(book.forProject({ ...project, policySource: SOFT }).revision).toBe(revisionOf(SOFT));
    expect(book.forProject({ ...project, policySource: fixturePolicy('invalid-mode') }).revision).toBe(revisionOf(SOFT));
    expect(book.resolveProjects([{ ...project, policySource: fixturePolicy('invalid-mode') }])).toMatchObject([
      { project: 'stored', reason: 'its stored policy "stored" does not compile', problems: [{ line: 6, column: 23 }] },
    ]);
    expect(book.activeRevisions().projects).toEqual({ p3: { policy: 'stored', revision: revisionOf(SOFT) } }); // by id: /readyz needs no key
    // A project never decided before has nothing to fall back to: the problems are thrown.
    expect(() => book.forProject({ id: 'p4', name: 'new', policy: 'new', policySource: fixturePolicy('invalid-mode') })).toThrow(/new:6:23/);
  });
});
