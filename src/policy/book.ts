// The compiled policies a service holds: the named ones from the policies folders (named-policies.ts,
// every file compiled at start: an invalid one stops the start), and project policies stored as source,
// compiled once per revision. Reloads compile aside and swap a whole compiled policy in one assignment:
// a request holds the CompiledPolicy it started with, so every answer comes from exactly one revision,
// and a policy that fails to compile never replaces the last good one.
import { LRUCache } from 'lru-cache';
import type { FactCatalog } from '../engine/catalog.js';
import type { CompiledPolicy } from './compile.js';
import { type CompiledVerdict, compileVerdict, verdictProblems } from './compile-verdict.js';
import { PolicyError, type PolicyProblem } from './errors.js';
import { customPolicyOverLimit } from './limits.js';
import { loadPolicy } from './load.js';
import { NamedPolicies, type NamedRevisions, type ReloadOutcome } from './named-policies.js';
import type { IntelligencePolicy } from './types.js';

/** Compiled policy sources (and custom_policy verdicts) kept; the least recently used go first. */
const MAX_CACHED_SOURCES = 500;

export interface PolicyReference {
  /** A policy name from the policies folders, or a label for an inline source. */
  policy: string;
  /** The YAML itself, when the project's policy came from a file rather than the folder. */
  policySource?: string | null;
  /** The project's id and name (a Project has both): its last good policy is kept under them. */
  id?: string;
  name?: string;
}

/** A project whose policy cannot be used: its name is in no folder, or its stored source does not compile. */
export interface UnresolvedPolicy {
  project: string;
  policy: string;
  /** What is wrong and what to do, in a sentence. */
  reason: string;
  problems: PolicyProblem[];
}

export interface ActiveRevisions {
  /** Named policies: their revision and which folder they came from. */
  named: NamedRevisions;
  /** Projects with a stored policy: the revision this instance decides their requests with. */
  projects: Record<string, { policy: string; revision: string }>;
}

export class PolicyNotFoundError extends Error {
  override readonly name = 'PolicyNotFoundError';
}

export class PolicyBook {
  private readonly bySource = new LRUCache<string, CompiledPolicy>({ max: MAX_CACHED_SOURCES });
  /** Stored sources that did not compile, so a failing revision is compiled and reported once. */
  private readonly failedSources = new LRUCache<string, PolicyError>({ max: MAX_CACHED_SOURCES });
  /** Per project id: the stored policy it was last decided by (kept when a newer source fails). */
  /** Projects on a stored policy, by id: the revision each is decided by now (/readyz). */
  private readonly storedActive = new Map<string, { project: string; policy: CompiledPolicy }>();
  /** The policy each project was last decided by, named or stored, by id: the fallback when its policy cannot be had. */
  private readonly lastDecided = new Map<string, CompiledPolicy>();
  private readonly verdicts = new LRUCache<string, CompiledVerdict>({ max: MAX_CACHED_SOURCES });
  private readonly listeners: ((outcome: ReloadOutcome) => void)[] = [];

  private constructor(
    private readonly catalog: FactCatalog,
    private readonly named: NamedPolicies,
  ) {}

  /** Loads and compiles every policy of `dir` and of the shipped folder; throws a PolicyError listing every problem found. */
  static load(dir: string, catalog: FactCatalog): PolicyBook {
    return new PolicyBook(catalog, NamedPolicies.load(dir, catalog));
  }

  /** Searched in order: POLICIES_DIR (when set), then the shipped folder. */
  get folders(): readonly string[] {
    return this.named.folders;
  }

  /** Told every outcome of a reload (files and stored sources). */
  onReload(listener: (outcome: ReloadOutcome) => void): void {
    this.listeners.push(listener);
  }

  names(): string[] {
    return this.named.names();
  }

  byName(name: string): CompiledPolicy | undefined {
    return this.named.get(name);
  }

  /** Reads the folders again (named-policies.ts); tells the listeners each outcome. */
  reloadFolders(): ReloadOutcome[] {
    const outcomes = this.named.reload();
    this.tell(outcomes);
    return outcomes;
  }

  /**
   * The compiled policy of a project. A stored source that does not compile, or a name no folder has,
   * falls back to the policy the project was last decided by; without one it throws (PolicyError for
   * an invalid source, PolicyNotFoundError for a missing name).
   */
  forProject(ref: PolicyReference): CompiledPolicy {
    if (!ref.policySource) {
      const named = this.named.get(ref.policy);
      if (named) return this.noteNamed(ref, named);
      const kept = ref.id ? this.lastDecided.get(ref.id) : undefined;
      if (kept) return kept;
      throw new PolicyNotFoundError(this.notFoundMessage(ref));
    }
    const key = sourceKey(ref.policy, ref.policySource);
    const cached = this.bySource.get(key);
    if (cached) return this.noteStored(ref, cached);
    const kept = ref.id ? this.lastDecided.get(ref.id) : undefined;
    const failed = this.failedSources.get(key);
    if (failed) {
      if (kept) return kept;
      throw failed;
    }
    try {
      const policy = loadPolicy({ name: ref.policy, file: ref.policy, text: ref.policySource }, this.catalog);
      this.bySource.set(key, policy);
      // A project's first policy in this instance is a load, not a reload: nothing to report.
      if (ref.id && kept && kept.revision !== policy.revision) this.tell([this.storedOutcome(ref, 'loaded', policy.revision, kept, [])]);
      return this.noteStored(ref, policy);
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      this.failedSources.set(key, error);
      if (ref.id) this.tell([this.storedOutcome(ref, 'failed', null, kept, error.problems)]);
      if (kept) return kept;
      throw error;
    }
  }

  /** Resolves every project's policy (compiling stored sources aside); returns those that cannot be used. */
  resolveProjects(projects: readonly PolicyReference[]): UnresolvedPolicy[] {
    const unresolved: UnresolvedPolicy[] = [];
    for (const project of projects) {
      try {
        this.forProject(project);
        // A stored text that failed, served from a kept policy, still needs fixing before a restart.
        if (project.policySource) {
          const failed = this.failedSources.get(sourceKey(project.policy, project.policySource));
          if (failed) throw failed;
          continue;
        }
        // A name no folder has any longer, served from a kept policy, still needs fixing before a restart.
        if (!this.named.hasFile(project.policy)) throw new PolicyNotFoundError(this.notFoundMessage(project));
      } catch (error) {
        const who = { project: project.name ?? project.policy, policy: project.policy };
        if (error instanceof PolicyError)
          unresolved.push({ ...who, reason: `its stored policy "${project.policy}" does not compile`, problems: error.problems });
        else if (error instanceof PolicyNotFoundError) unresolved.push({ ...who, reason: error.message, problems: [] });
        else throw error;
      }
    }
    return unresolved;
  }

  /** The revision in use for each named policy, and for each project with a stored policy. */
  activeRevisions(): ActiveRevisions {
    const projects: ActiveRevisions['projects'] = {};
    for (const { project, policy } of [...this.storedActive.values()].sort((a, b) => a.project.localeCompare(b.project))) {
      projects[project] = { policy: policy.name, revision: policy.revision };
    }
    return { named: this.named.revisions(), projects };
  }

  /**
   * Compiles a request's custom_policy (schema-checked by the caller), reusing the compiled form for the
   * same content; throws CustomPolicyError naming the limit it passes (limits.ts) or its first problem.
   */
  customVerdict(custom: IntelligencePolicy): CompiledVerdict {
    const over = customPolicyOverLimit(custom);
    if (over) throw new CustomPolicyError(`custom_policy${over.path.map((p) => `.${p}`).join('')}: ${over.message}`);
    const key = JSON.stringify(custom);
    let verdict = this.verdicts.get(key);
    if (!verdict) {
      const [problem] = verdictProblems(custom, this.catalog);
      if (problem) throw new CustomPolicyError(`custom_policy.${problem.path.join('.')}: ${problem.message}`);
      verdict = compileVerdict(custom, this.catalog);
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }

  private noteStored(ref: PolicyReference, policy: CompiledPolicy): CompiledPolicy {
    if (ref.id && this.storedActive.get(ref.id)?.policy !== policy) {
      this.storedActive.set(ref.id, { project: ref.id, policy }); // /readyz needs no key: ids, never names
      this.lastDecided.set(ref.id, policy);
    }
    return policy;
  }

  /** A project now on a named policy: /readyz lists it under the name, no longer under its old stored revision. */
  private noteNamed(ref: PolicyReference, policy: CompiledPolicy): CompiledPolicy {
    if (ref.id && this.lastDecided.get(ref.id) !== policy) {
      this.lastDecided.set(ref.id, policy);
      this.storedActive.delete(ref.id);
    }
    return policy;
  }

  private storedOutcome(
    ref: PolicyReference,
    result: ReloadOutcome['result'],
    revision: string | null,
    kept: CompiledPolicy | undefined,
    problems: PolicyProblem[],
  ): ReloadOutcome {
    return { source: 'stored', policy: ref.policy, project: ref.name ?? ref.id, result, revision, previous: kept?.revision ?? null, problems };
  }

  private tell(outcomes: readonly ReloadOutcome[]): void {
    for (const outcome of outcomes) for (const listener of this.listeners) listener(outcome);
  }

  private notFoundMessage(ref: PolicyReference): string {
    const who = ref.name ? `project "${ref.name}" uses policy "${ref.policy}", which` : `policy "${ref.policy}"`;
    const where =
      this.folders.length > 1
        ? `is neither in POLICIES_DIR (${this.folders[0]}) nor in the shipped policies`
        : `is not in the policies folder (${this.folders[0]})`;
    const fix = ref.name
      ? `add ${ref.policy}.yaml to POLICIES_DIR, or point the project at another policy: email-trust project update ${ref.name} --policy NAME|FILE`
      : `add ${ref.policy}.yaml to POLICIES_DIR or name another policy`;
    return `${who} ${where} (known: ${this.names().join(', ')}); ${fix}`;
  }
}

/** The cache key of a stored policy: its label and its text. */
function sourceKey(label: string, text: string): string {
  return `${label}\u0000${text}`;
}

export class CustomPolicyError extends Error {}
