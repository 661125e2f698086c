// The compiled policies a service holds: every file in policies/ compiled at start (an invalid one
// stops the start), and project-specific policy sources compiled once per revision.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { FactCatalog } from '../engine/catalog.js';
import { type CompiledPolicy, compilePolicy } from './compile.js';
import { type CompiledVerdict, compileVerdict, verdictProblems } from './compile-verdict.js';
import { PolicyError } from './errors.js';
import { parsePolicy, readPolicyFile } from './load.js';
import type { IntelligencePolicy } from './types.js';

/** Compiled policy sources (and custom_policy verdicts) kept; the least recently used go first. */
const MAX_CACHED_SOURCES = 500;

export interface PolicyReference {
  /** A policy name from the policies folder, or a label for an inline source. */
  policy: string;
  /** The YAML itself, when the project's policy came from a file rather than the folder. */
  policySource?: string | null;
}

export class PolicyBook {
  private readonly named = new Map<string, CompiledPolicy>();
  private readonly bySource = new LRUCache<string, CompiledPolicy>({ max: MAX_CACHED_SOURCES });
  private readonly verdicts = new LRUCache<string, CompiledVerdict>({ max: MAX_CACHED_SOURCES });

  private constructor(private readonly catalog: FactCatalog) {}

  /** Loads and compiles every policy in `dir`; throws a PolicyError listing every problem found. */
  static load(dir: string, catalog: FactCatalog): PolicyBook {
    const book = new PolicyBook(catalog);
    const problems = [];
    for (const file of readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      const name = basename(file).replace(/\.ya?ml$/, '');
      try {
        book.named.set(name, compilePolicy(name, readPolicyFile(join(dir, file)), catalog));
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        problems.push(...error.problems);
      }
    }
    if (problems.length > 0) throw new PolicyError(problems);
    return book;
  }

  names(): string[] {
    return [...this.named.keys()];
  }

  byName(name: string): CompiledPolicy | undefined {
    return this.named.get(name);
  }

  /** The compiled policy of a project; throws PolicyError if its stored source is invalid. */
  forProject(ref: PolicyReference): CompiledPolicy {
    if (ref.policySource) return this.fromSource(ref.policy, ref.policySource);
    const policy = this.named.get(ref.policy);
    if (!policy) throw new Error(`policy "${ref.policy}" is not in the policies folder (known: ${this.names().join(', ')})`);
    return policy;
  }

  /** Compiles a policy given as text, reusing the compiled form for the same label and text. */
  fromSource(label: string, text: string): CompiledPolicy {
    const key = `${label}\u0000${text}`;
    let policy = this.bySource.get(key);
    if (!policy) {
      policy = compilePolicy(label, parsePolicy(label, text), this.catalog);
      this.bySource.set(key, policy);
    }
    return policy;
  }

  /**
   * Compiles a request's custom_policy (schema-checked by the caller), reusing the compiled form for the
   * same content; throws CustomPolicyError naming the first problem.
   */
  customVerdict(custom: IntelligencePolicy): CompiledVerdict {
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
}

export class CustomPolicyError extends Error {}
