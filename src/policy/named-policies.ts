// Named policies from folders: POLICIES_DIR first, the shipped policies/ folder second (a name in
// POLICIES_DIR shadows the shipped one). A reload compiles each changed file aside and swaps the whole
// map in one assignment; a file that fails keeps its name's last policy, and so does a deleted one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FactCatalog } from '../engine/catalog.js';
import { policiesDir as shippedPoliciesDir } from '../paths.js';
import type { CompiledPolicy } from './compile.js';
import { PolicyError, type PolicyProblem } from './errors.js';
import { loadPolicy, readPolicyText } from './load.js';

/** A policy file's name: the policy's name and this ending. */
export const POLICY_FILE = /\.ya?ml$/;

/** What one reload did to one policy: told to the book's listeners (logs and metrics). */
export interface ReloadOutcome {
  /** `file`: a named policy from a folder; `stored`: a project's stored source. */
  source: 'file' | 'stored';
  policy: string;
  /** The project, for a stored policy. */
  project?: string;
  /** `loaded`: the new revision is in use; `failed`: it did not compile, `previous` stays in use. */
  result: 'loaded' | 'failed';
  revision: string | null;
  previous: string | null;
  problems: PolicyProblem[];
}

/** Where named policies are looked up, for messages: `dir`, or POLICIES_DIR and then the shipped folder. */
export function policyFolders(dir: string): string {
  return dir === shippedPoliciesDir ? dir : `POLICIES_DIR (${dir}) or the shipped ${shippedPoliciesDir}`;
}

export type NamedRevisions = Record<string, { revision: string; from: 'POLICIES_DIR' | 'shipped' }>;

interface NamedEntry {
  policy: CompiledPolicy;
  text: string;
}

export class NamedPolicies {
  private entries = new Map<string, NamedEntry>();
  /** Per name, the file text that last failed to compile: reported once, not at every reload. */
  private readonly failedTexts = new Map<string, string>();
  /** Names whose file went away (reported once; their last policy stays in use). */
  private readonly gone = new Set<string>();

  private constructor(
    private readonly catalog: FactCatalog,
    /** Searched in order: POLICIES_DIR (when set), then the shipped folder. */
    readonly folders: readonly string[],
  ) {}

  /**
   * Compiles every policy in `dir` and, when `dir` is not the shipped folder, every shipped policy whose
   * name `dir` does not have; throws a PolicyError listing every problem found.
   */
  static load(dir: string, catalog: FactCatalog): NamedPolicies {
    const named = new NamedPolicies(catalog, dir === shippedPoliciesDir ? [dir] : [dir, shippedPoliciesDir]);
    const problems: PolicyProblem[] = [];
    for (const [name, file] of named.files()) {
      try {
        const text = readPolicyText(file);
        named.entries.set(name, { policy: loadPolicy({ name, file, text }, catalog), text });
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        problems.push(...error.problems);
      }
    }
    if (problems.length > 0) throw new PolicyError(problems);
    return named;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  get(name: string): CompiledPolicy | undefined {
    return this.entries.get(name)?.policy;
  }

  /** Whether the name's file is in a folder now (a deleted one's policy is still served, until a restart). */
  hasFile(name: string): boolean {
    return this.entries.has(name) && !this.gone.has(name);
  }

  /**
   * Reads the folders again; each file whose text changed is compiled aside and replaces its name's
   * policy when it compiles. A file that went away keeps its last policy (projects may still use it).
   */
  reload(): ReloadOutcome[] {
    const outcomes: ReloadOutcome[] = [];
    const next = new Map(this.entries);
    const files = this.files();
    for (const [name, file] of files) {
      this.gone.delete(name);
      const current = next.get(name);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // gone between the listing and the read (an editor's rename): the next change event reads it
      }
      if (current?.text === text) {
        this.failedTexts.delete(name); // back to the text in use: a later return of the failing text is news again
        continue;
      }
      if (this.failedTexts.get(name) === text) continue;
      const previous = current?.policy.revision ?? null;
      try {
        const policy = loadPolicy({ name, file, text }, this.catalog);
        next.set(name, { policy, text });
        this.failedTexts.delete(name);
        outcomes.push({ source: 'file', policy: name, result: 'loaded', revision: policy.revision, previous, problems: [] });
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        this.failedTexts.set(name, text);
        outcomes.push({ source: 'file', policy: name, result: 'failed', revision: null, previous, problems: error.problems });
      }
    }
    for (const [name, entry] of next) {
      if (files.has(name) || this.gone.has(name)) continue;
      this.gone.add(name);
      const message = 'the file is gone: its loaded revision stays in use until a restart, which refuses to start while a project uses it';
      const problems = [{ file: name, line: 0, column: 0, path: '', message }];
      outcomes.push({ source: 'file', policy: name, result: 'failed', revision: null, previous: entry.policy.revision, problems });
    }
    this.entries = next;
    return outcomes;
  }

  /** Each name's revision in use and the folder it came from. */
  revisions(): NamedRevisions {
    const revisions: NamedRevisions = {};
    const shipped = `${this.folders.at(-1)}/`;
    for (const name of this.names()) {
      const policy = this.entries.get(name)?.policy as CompiledPolicy;
      revisions[name] = { revision: policy.revision, from: this.folders.length > 1 && !policy.file.startsWith(shipped) ? 'POLICIES_DIR' : 'shipped' };
    }
    return revisions;
  }

  /** Each policy name and the file it is read from: the first folder that has it wins. */
  private files(): Map<string, string> {
    const files = new Map<string, string>();
    for (const folder of this.folders) {
      for (const file of readdirSync(folder)
        .filter((f) => POLICY_FILE.test(f))
        .sort()) {
        const name = file.replace(POLICY_FILE, '');
        if (!files.has(name)) files.set(name, join(folder, file));
      }
    }
    return files;
  }
}
