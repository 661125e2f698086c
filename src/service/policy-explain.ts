// `email-trust policy explain`: one address through a policy, against the world a fixtures file declares
// (what a policy test declares: `history:` and `network:`; none by default), explained; or a stored event
// replayed on the facts it recorded (as `policy replay` does), explained. Nothing is stored.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { noHistory } from '../engine/no-history.js';
import type { ProjectListReader } from '../engine/plugin.js';
import { OFFLINE } from '../network/offline.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { evaluate } from '../policy/evaluate.js';
import type { Explanation } from '../policy/explain.js';
import { describeSchemaErrors, pointer, validatorFor } from '../schemas.js';
import type { StoredDecision } from '../store/decisions.js';
import { SOFT_CHECK_MARK } from '../store/replay-events.js';
import { ioFacts } from './policy-replay.js';
import { TestHistory } from './policy-test-fixtures.js';
import { evaluateWithFixtures, type FixtureRun } from './policy-tests.js';

export type Fixtures = Pick<FixtureRun, 'history' | 'labels' | 'network' | 'blocklists'>;

export interface ExplainInput {
  email_address: string;
  ipv4_address?: string;
  ipv6_address?: string;
}

/** A fixtures file is validated as the `history`, `labels`, `network` and `blocklists` of a policy test (schemas/policy.schema.json). */
const TEST_SCHEMA = { $ref: 'https://email-trust.dev/schemas/policy.schema.json#/definitions/test' };

export class FixturesError extends Error {}

const FIXTURE_KEYS: readonly string[] = ['history', 'labels', 'network', 'blocklists'];

/** Reads a fixtures file (YAML or JSON): `history:`, `labels:`, `network:` and `blocklists:` as in a policy test. */
export function readFixtures(file: string): Fixtures {
  let document: unknown;
  try {
    document = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new FixturesError(`${file}: ${(error as Error).message}`);
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document))
    throw new FixturesError(`${file}: must be a mapping with history:, labels:, network: and/or blocklists:`);
  const extra = Object.keys(document).filter((key) => !FIXTURE_KEYS.includes(key));
  if (extra.length > 0)
    throw new FixturesError(
      `${file}: unknown key ${extra.join(', ')} (a fixtures file holds history:, labels:, network: and blocklists:, as a policy test does)`,
    );
  const validate = validatorFor(TEST_SCHEMA);
  if (!validate({ name: 'explain', input: { email_address: 'x@example.com' }, expected: {}, ...document })) {
    const problems = describeSchemaErrors(validate.errors ?? []).map((p) => `${pointer(p.path)}: ${p.message}`);
    throw new FixturesError(`${file}: ${problems.join('; ')}`);
  }
  return document as Fixtures;
}

/** The explanation of `input` under `policy`, the network and history as `fixtures` say. */
export async function explainAddress(policy: CompiledPolicy, input: ExplainInput, fixtures: Fixtures = {}, now: number = Date.now()): Promise<Explanation> {
  const history = new TestHistory();
  try {
    const evaluation = await evaluateWithFixtures(policy, { input, ...fixtures }, history, 0, now, { explain: true });
    return evaluation.explanation as Explanation;
  } finally {
    await history.close();
  }
}

export interface EventExplanation {
  explanation: Explanation;
  /**
   * Network and history facts the policy read that the event had not recorded (an event from before
   * migration 0009, a soft_check call's domain facts, a fact the deciding policy never read): unknown here.
   */
  not_recorded: string[];
}

/**
 * A stored event decided again by `policy` and explained: the checks on the address run again offline (the
 * project's lists as they are now, the event's time as the clock), the network and history facts are the
 * ones it recorded, never looked up again.
 */
export async function explainEvent(policy: CompiledPolicy, event: StoredDecision, lists: ProjectListReader): Promise<EventExplanation> {
  const io = ioFacts(policy.catalog);
  const recorded = event.recordedFacts ?? {};
  const notRecorded = new Set<string>();
  const given = (name: string): unknown => {
    if (!io.has(name)) return undefined;
    if (Object.hasOwn(recorded, name) && name !== SOFT_CHECK_MARK) return recorded[name];
    notRecorded.add(name);
    return null;
  };
  const input = {
    email: event.email,
    ipv4: event.ipv4,
    ipv6: event.ipv6,
    device: event.device,
    softCheck: true,
    projectId: event.projectId,
    fingerprint: null,
  };
  const services = { velocity: noHistory, network: OFFLINE, lists, now: () => event.createdAt };
  const evaluation = await evaluate(policy, input, services, { explain: true, given, timed: false });
  return { explanation: evaluation.explanation as Explanation, not_recorded: [...notRecorded].sort() };
}
