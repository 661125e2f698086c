// The service's operations bound to their context: what the HTTP layer calls.
import type { Project } from '../store/projects.js';
import type { ServiceContext } from './context.js';
import { type CallContext, createPolicyTexts, type Decided } from './decisions.js';
import { type FeedbackAnswer, type FeedbackRequest, recordFeedback } from './feedback.js';
import type { DeviceSignals, FingerprintSealer } from './fingerprint.js';
import { type IntelligenceRequest, intelligence } from './intelligence.js';
import { type PlaygroundAnswer, type PlaygroundPolicy, type PlaygroundRequest, playgroundEvaluate, playgroundPolicy } from './playground.js';
import { createTurnBatch } from './turn-batch.js';
import { type VerifyRequest, type VerifyResponse, verify } from './verify.js';

export interface Operations {
  /** The answer and its decision's id (X-Decision-Id). */
  verify(project: Project, request: VerifyRequest, call: CallContext): Promise<Decided<VerifyResponse>>;
  intelligence(project: Project, request: IntelligenceRequest, call: CallContext): Promise<Decided<Record<string, unknown>>>;
  fingerprint(project: Project, signals: DeviceSignals): Promise<{ fingerprint: string }>;
  /** A label on one of the project's decisions (POST /v1/feedback). */
  feedback(project: Project, request: FeedbackRequest): Promise<FeedbackAnswer>;
  /** The policy playground (sandbox projects only). */
  playgroundPolicy(project: Project): PlaygroundPolicy;
  playgroundEvaluate(project: Project, request: PlaygroundRequest): Promise<PlaygroundAnswer>;
}

export function createOperations(ctx: ServiceContext, deps: { sealer: FingerprintSealer }): Operations {
  // Verify and intelligence decide a turn's requests together, at its end (turn-batch.ts).
  const turnEnd = createTurnBatch();
  const decided = { ...deps, texts: createPolicyTexts(ctx.store.policyRevisions) };
  return {
    verify: async (project, request, call) => {
      await turnEnd();
      return verify(ctx, decided, project, request, call);
    },
    intelligence: async (project, request, call) => {
      await turnEnd();
      return intelligence(ctx, decided, project, request, call);
    },
    fingerprint: async (project, signals) => ({ fingerprint: deps.sealer.seal(project.id, signals, ctx.now()) }),
    feedback: (project, request) => recordFeedback(ctx, project, request),
    playgroundPolicy: (project) => playgroundPolicy(ctx, project),
    playgroundEvaluate: (project, request) => playgroundEvaluate(ctx, project, request),
  };
}
