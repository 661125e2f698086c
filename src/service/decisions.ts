// What every recorded decision carries besides its verdict: a public id, made here when the service decides
// (docs/decisions/0084), and the text of the policy revision that decided, stored before the decision's
// event so that every stored revision can be explained later (policy_revisions).
import { v7 as uuidv7 } from 'uuid';
import type { CompiledPolicy } from '../policy/compile.js';
import type { PolicyRevisions } from '../store/policy-revisions.js';

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
  remembered(policy: CompiledPolicy): Promise<void> | undefined;
}

export function createPolicyTexts(revisions: PolicyRevisions): PolicyTexts {
  /** Revisions stored (or found unobtainable) by this process: never asked again. */
  const done = new Set<string>();
  const pending = new Map<string, Promise<void>>();

  async function remember(policy: CompiledPolicy): Promise<void> {
    await revisions.remember({ revision: policy.revision, name: policy.name, source: policy.source });
    done.add(policy.revision);
  }

  return {
    remembered(policy) {
      if (done.has(policy.revision)) return undefined;
      let storing = pending.get(policy.revision);
      if (!storing) {
        storing = remember(policy).finally(() => pending.delete(policy.revision));
        pending.set(policy.revision, storing);
      }
      return storing;
    },
  };
}
