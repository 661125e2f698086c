// What every recorded decision carries besides its verdict: a public id, made here when the service decides
// (docs/decisions/0084), and the text of the policy revision that decided, stored before the decision's
// event so that every stored revision can be explained later (policy_revisions).
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import type { CompiledPolicy } from '../policy/compile.js';
import { policyRevision } from '../policy/load.js';
import type { PolicyRevisions } from '../store/policy-revisions.js';
import type { Project } from '../store/projects.js';

/** What the HTTP layer hands an operation about the call. */
export interface CallContext {
  /** X-Request-Id (src/http/middleware/request-log.ts). */
  requestId: string | null;
}

/** An operation's answer and the id of the decision its event records (X-Decision-Id). */
export interface Decided<T> {
  body: T;
  decisionId: string;
}

/** A decision's public id: a UUIDv7 (random, time-ordered: its index takes inserts at one end). */
export const newDecisionId = (): string => uuidv7();

export interface PolicyTexts {
  /**
   * Resolves once the revision's text is stored; undefined (nothing to wait for) when this process already
   * stored it. A failure (the database unavailable) rejects, and the next call tries again.
   */
  remembered(policy: CompiledPolicy, project: Project): Promise<void> | undefined;
}

/**
 * The text a compiled policy was built from: the project's stored source, or the named policy's file, when
 * its hash is the policy's revision. null when neither is (the file changed since it was compiled, or a
 * source that no longer compiles left the project on its last good policy).
 */
async function textOf(policy: CompiledPolicy, project: Project): Promise<string | null> {
  if (project.policySource !== null && policyRevision(project.policySource) === policy.revision) return project.policySource;
  if (project.policySource !== null) return null;
  const text = await readFile(policy.file, 'utf8').catch(() => null);
  return text !== null && policyRevision(text) === policy.revision ? text : null;
}

export function createPolicyTexts(revisions: PolicyRevisions, log: Logger): PolicyTexts {
  /** Revisions stored (or found unobtainable) by this process: never asked again. */
  const done = new Set<string>();
  const pending = new Map<string, Promise<void>>();

  async function remember(policy: CompiledPolicy, project: Project): Promise<void> {
    const source = await textOf(policy, project);
    if (source === null) {
      log.warn(
        { policy: policy.name, revision: policy.revision },
        'policy text not stored: its file or stored source changed since it was compiled; its decisions name a revision whose text is not kept',
      );
    } else await revisions.remember({ revision: policy.revision, name: policy.name, source });
    done.add(policy.revision);
  }

  return {
    remembered(policy, project) {
      if (done.has(policy.revision)) return undefined;
      let storing = pending.get(policy.revision);
      if (!storing) {
        storing = remember(policy, project).finally(() => pending.delete(policy.revision));
        pending.set(policy.revision, storing);
      }
      return storing;
    },
  };
}
