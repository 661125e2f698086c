// Reads a policy (YAML, or JSON which is YAML) and validates it against schemas/policy.schema.json,
// keeping every node's position so problems name file, line and column.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Document, isNode, LineCounter, parseDocument } from 'yaml';
import { describeSchemaErrors, pointer, schemaValidator } from '../schemas.js';
import { PolicyError, type PolicyProblem, sortProblems } from './errors.js';
import type { PolicyDocument } from './types.js';

/** Largest policy accepted, in bytes. */
export const POLICY_MAX_BYTES = 256 * 1024;
const MAX_ALIASES = 50;

const CONDITION_FORMS = 'a condition must be {all: [...]}, {any: [...]}, {not: {...}} or {fact, operator, value}';

export interface LoadedPolicy {
  /** Where it came from (a file path or a label such as "custom_policy"). */
  file: string;
  text: string;
  /** Content hash: names this policy's revision in every decision. */
  revision: string;
  document: PolicyDocument;
  /** Position of the node at a path (or of its nearest existing ancestor). */
  locate(path: readonly (string | number)[]): { line: number; column: number };
  problem(path: readonly (string | number)[], message: string): PolicyProblem;
}

export function readPolicyFile(file: string): LoadedPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError([{ file, line: 0, column: 0, path: '', message: `cannot read the policy: ${(error as Error).message}` }]);
  }
  return parsePolicy(file, text);
}

export function parsePolicy(file: string, text: string): LoadedPolicy {
  if (Buffer.byteLength(text, 'utf8') > POLICY_MAX_BYTES) {
    throw new PolicyError([{ file, line: 0, column: 0, path: '', message: `the policy is larger than ${POLICY_MAX_BYTES} bytes` }]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number) => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  const syntax = [...doc.errors].map((e) => ({ file, ...at(e.pos[0]), path: '', message: e.message.split('\n')[0] ?? e.code }));
  if (syntax.length > 0) throw new PolicyError(sortProblems(syntax));

  const locate = (path: readonly (string | number)[]) => at(offsetOf(doc, path));
  const problem = (path: readonly (string | number)[], message: string): PolicyProblem => ({
    file,
    ...locate(path),
    path: pointer(path),
    message,
  });

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new PolicyError([problem([], (error as Error).message)]);
  }
  const validate = schemaValidator<PolicyDocument>('policy');
  if (!validate(value)) {
    const problems = describeSchemaErrors(validate.errors ?? [], CONDITION_FORMS).map((p) => problem(p.path, p.message));
    throw new PolicyError(sortProblems(problems));
  }
  const revision = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { file, text, revision, document: value, locate, problem };
}

/** Offset of the deepest existing node on the path (the value; for a missing key, its parent). */
function offsetOf(doc: Document, path: readonly (string | number)[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}
