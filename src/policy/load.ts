// Reads a policy (YAML, or JSON which is YAML) and validates it against schemas/policy.schema.json,
// keeping every node's position so problems name file, line and column. A syntax error stops here; schema
// problems are kept on the loaded policy, so that the compiler reports them with its own in one pass.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { type Document, isNode, LineCounter, parseDocument } from 'yaml';
import { echoInput } from '../echoed-input.js';
import { describeSchemaErrors, pointer, schemaValidator } from '../schemas.js';
import { didYouMean } from './did-you-mean.js';
import { PolicyError, type PolicyProblem, sortProblems } from './errors.js';
import { syntaxProblems } from './syntax.js';
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
  /** The document; a PolicyDocument only when `problems` is empty. */
  document: PolicyDocument;
  /** What the schema refused, each with its position; the compiler adds its own and reports them all. */
  problems: PolicyProblem[];
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
  if (doc.errors.length > 0) throw new PolicyError(sortProblems(syntaxProblems(file, text, doc, lineCounter)));

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
  const problems = validate(value) ? [] : schemaProblems(validate.errors ?? [], value).map((p) => problem(p.path, p.message));
  const revision = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { file, text, revision, document: value as PolicyDocument, problems: sortProblems(problems), locate, problem };
}

/** The schema's complaints, a value that is not one of a list getting the closest allowed one (`lesThan`). */
function schemaProblems(errors: readonly ErrorObject[], value: unknown): { path: (string | number)[]; message: string }[] {
  const suggestions = new Map<string, string>();
  for (const error of errors) {
    const given = valueAt(value, error.instancePath);
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    if (error.keyword !== 'enum' || typeof given !== 'string' || !allowed) continue;
    const hint = didYouMean(given, allowed.map(String));
    if (hint) suggestions.set(error.instancePath, `got "${echoInput(given)}"${hint}`);
  }
  return describeSchemaErrors(errors, CONDITION_FORMS).map((p) => {
    const hint = p.message.startsWith('must be one of') ? suggestions.get(pointer(p.path)) : undefined;
    return hint ? { path: p.path, message: `${p.message}; ${hint}` } : p;
  });
}

/** The value at a JSON pointer (ajv's instancePath). */
function valueAt(value: unknown, instancePath: string): unknown {
  let node = value;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** Offset of the deepest existing node on the path (the value; for a missing key, its parent). */
function offsetOf(doc: Document, path: readonly (string | number)[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}
