// The one way a policy text becomes a compiled policy, however it arrives (a file, a project's stored text,
// a reload, the playground): loadPolicy. Its text is held to limits.ts before it is parsed; then it is read
// as YAML (or JSON, which is YAML) keeping every node's position, so problems name file, line and column;
// its document is held to the limits again and validated against schemas/policy.schema.json; the compiler's
// problems are added, and all of them reported in one pass. checkPolicy is that check alone (the
// playground runs it on a thread of its own) and compile.ts builds the rules from what it returns.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { Composer, type CST, type Document, isMap, isNode, isSeq, LineCounter, Parser, YAMLParseError } from 'yaml';
import { echoInput } from '../echoed-input.js';
import type { FactCatalog } from '../engine/catalog.js';
import { describeSchemaErrors, pointer, schemaValidator } from '../schemas.js';
import { type CompiledPolicy, compilePolicy } from './compile.js';
import { didYouMean } from './did-you-mean.js';
import { PolicyError, PolicyLimitError, type PolicyProblem, sortProblems } from './errors.js';
import { documentOverLimit, POLICY_LIMITS, textOverLimit, tokensOverLimit } from './limits.js';
import { policyProblems } from './problems.js';
import { duplicateKeyProblems, keyName, syntaxProblems } from './syntax.js';
import type { PolicyDocument } from './types.js';
import { policyWarnings } from './warnings.js';

const CONDITION_FORMS = 'a condition must be {all: [...]}, {any: [...]}, {not: {...}} or {fact, operator, value}';

export interface PolicySource {
  /** The name its answers give: a policies-folder name, a project's policy label, `playground`. */
  name: string;
  /** Where it came from, for problems: a file path, or a label. */
  file: string;
  /** The text; read from `file` when absent. */
  text?: string;
}

/** A policy within every limit and without problems: what compile.ts builds rules from. */
export interface CheckedPolicy {
  name: string;
  file: string;
  /** Content hash: names this policy's revision in every decision. */
  revision: string;
  /** The text it was read from (what `revision` hashes): kept with every decision's revision (policy_revisions). */
  source: string;
  document: PolicyDocument;
  /** What it may not mean as written (warnings.ts): `policy check` prints them, `--strict` refuses them. */
  warnings: PolicyProblem[];
}

/** A parsed policy with the schema's problems and the positions of its nodes (problems.ts adds its own). */
export interface LoadedPolicy {
  /** The document; a PolicyDocument only when `problems` is empty. */
  document: PolicyDocument;
  /** What the schema refused, each with its position. */
  problems: PolicyProblem[];
  problem(path: readonly (string | number)[], message: string): PolicyProblem;
}

/** The policy compiled; throws a PolicyError listing its problems (a PolicyLimitError for a limit passed). */
export function loadPolicy(source: PolicySource, catalog: FactCatalog): CompiledPolicy {
  return compilePolicy(checkPolicy(source, catalog), catalog);
}

/** Every limit and problem of the policy, without compiling its rules; throws as loadPolicy does. */
export function checkPolicy(source: PolicySource, catalog: FactCatalog): CheckedPolicy {
  const text = source.text ?? readPolicyText(source.file);
  const loaded = parsePolicy(source.file, text);
  const problems = policyProblems(loaded, catalog);
  if (problems.length > 0) throw new PolicyError(problems);
  const warnings = sortProblems(policyWarnings(loaded, catalog)).slice(0, POLICY_LIMITS.problems);
  return { name: source.name, file: source.file, revision: policyRevision(text), source: text, document: loaded.document, warnings };
}

/** The revision of a policy text: the first 16 hex digits of its SHA-256. */
export function policyRevision(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A policy file's text; a PolicyError when it cannot be read. */
export function readPolicyText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError([{ file, line: 0, column: 0, path: '', message: `cannot read the policy: ${(error as Error).message}` }]);
  }
}

function parsePolicy(file: string, text: string): LoadedPolicy {
  const over = textOverLimit(text);
  if (over) throw new PolicyLimitError({ file, line: over.line, column: over.column, path: '', message: over.message });
  const lineCounter = new LineCounter();
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const deep = tokensOverLimit(tokens);
  if (deep) {
    const { line, col } = lineCounter.linePos(deep.offset);
    throw new PolicyLimitError({ file, line, column: col, path: '', message: deep.message });
  }
  const doc = withoutStackTraces(() => firstDocument(tokens, text.length));
  const syntax = [...(doc.errors.length > 0 ? syntaxProblems(file, text, tokens, doc, lineCounter) : []), ...duplicateKeyProblems(file, doc, lineCounter)];
  if (syntax.length > 0) throw new PolicyError(sortProblems(syntax).slice(0, POLICY_LIMITS.problems));

  let offsets: Map<string, number> | undefined;
  const problem = (path: readonly (string | number)[], message: string): PolicyProblem => {
    offsets ??= nodeOffsets(doc);
    const { line, col } = lineCounter.linePos(offsetOf(offsets, path));
    return { file, line, column: col, path: pointer(path), message };
  };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: POLICY_LIMITS.aliases });
  } catch (error) {
    const message = (error as Error).message;
    // yaml's words for its maxAliasCount: the limit, in ours.
    if (/Excessive alias count/.test(message)) {
      throw new PolicyLimitError(problem([], `an anchor (&name) with its uses (*name) counted more than ${POLICY_LIMITS.aliases} times`));
    }
    throw new PolicyError([problem([], message)]);
  }
  const overDocument = documentOverLimit(value);
  if (overDocument) throw new PolicyLimitError(problem(overDocument.path, overDocument.message));
  const validate = schemaValidator<PolicyDocument>('policy');
  const sourceAt = (path: readonly (string | number)[]) => {
    const node = doc.getIn(path, true) as { source?: unknown } | undefined;
    return typeof node?.source === 'string' ? node.source : undefined;
  };
  const problems = validate(value) ? [] : schemaProblems(validate.errors ?? [], value, sourceAt).map((p) => problem(p.path, p.message));
  return { document: value as PolicyDocument, problems: sortProblems(problems).slice(0, POLICY_LIMITS.problems), problem };
}

/**
 * The first YAML document of the tokens, as yaml's parseDocument composes it (which parses and composes in one
 * go, leaving no room to measure the tokens in between); a second document is an error.
 */
function firstDocument(tokens: readonly CST.Token[], length: number): Document.Parsed {
  // Not yaml's uniqueKeys, which compares each key with every key before it: duplicateKeyProblems is linear.
  const composer = new Composer({ uniqueKeys: false });
  let first: Document.Parsed | undefined;
  for (const doc of composer.compose(tokens, true, length)) {
    if (!first) first = doc;
    else {
      first.errors.push(
        new YAMLParseError([doc.range[0], doc.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'),
      );
      break;
    }
  }
  return first as Document.Parsed;
}

/**
 * The work, with no stack traces captured: yaml makes an Error for each problem it finds (tens of thousands in
 * the worst texts within the limits), whose stacks nobody reads and whose capture was half of such a check.
 * An error thrown out of the work has no stack either; its message still names what failed.
 */
function withoutStackTraces<T>(work: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return work();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The schema's complaints, a value that is not one of a list getting the closest allowed one (`lesThan`), and
 * a number, boolean or date where a string belongs the advice to quote it: YAML reads `version: 1.0` as 1.
 */
function schemaProblems(
  errors: readonly ErrorObject[],
  value: unknown,
  sourceAt: (path: readonly (string | number)[]) => string | undefined,
): { path: (string | number)[]; message: string }[] {
  const suggestions = new Map<string, string>();
  let looked = 0;
  for (const error of errors) {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    if (error.keyword !== 'enum' || !allowed) continue;
    const given = valueAt(value, error.instancePath);
    if (typeof given !== 'string') continue;
    // Only so many problems are reported: the rest need no hint.
    if (++looked > POLICY_LIMITS.problems) break;
    const hint = didYouMean(given, allowed.map(String));
    if (hint) suggestions.set(error.instancePath, `got "${echoInput(given)}"${hint}`);
  }
  return describeSchemaErrors(errors, CONDITION_FORMS).map((p) => {
    const hint = p.message.startsWith('must be one of')
      ? suggestions.get(pointer(p.path))
      : p.message === 'must be of type string'
        ? quoteHint(p.path)
        : undefined;
    return hint ? { path: p.path, message: `${p.message}; ${hint}` } : p;
  });

  function quoteHint(path: readonly (string | number)[]): string | undefined {
    const given = valueAt(value, pointer(path));
    if (typeof given !== 'number' && typeof given !== 'boolean' && !(given instanceof Date)) return undefined;
    const written = sourceAt(path) ?? String(given);
    const key = path.at(-1);
    const kind = given instanceof Date ? 'a date' : `a ${typeof given}`;
    return `put it in quotes (${typeof key === 'string' ? `${key}: ` : ''}"${echoInput(written)}"): unquoted, YAML reads ${echoInput(written)} as ${kind}`;
  }
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
function offsetOf(offsets: ReadonlyMap<string, number>, path: readonly (string | number)[]): number {
  for (let n = path.length; n >= 0; n--) {
    const offset = offsets.get(pointer(path.slice(0, n)));
    if (offset !== undefined) return offset;
  }
  return 0;
}

/**
 * Where each node of the document starts, by JSON pointer (a value's; a key's when its value has none), in
 * one walk: located one by one, each problem of 5,000 in one map searched it from its first key.
 */
function nodeOffsets(doc: Document): Map<string, number> {
  const offsets = new Map<string, number>();
  const stack: { node: unknown; path: (string | number)[] }[] = [{ node: doc.contents, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, path } = next;
    if (!isNode(node)) continue;
    const at = pointer(path);
    if (node.range && !offsets.has(at)) offsets.set(at, node.range[0]);
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyName(pair.key);
        const where = [...path, key];
        const start = isNode(pair.value) && pair.value.range ? pair.value.range[0] : isNode(pair.key) ? pair.key.range?.[0] : undefined;
        if (start !== undefined && !offsets.has(pointer(where))) offsets.set(pointer(where), start);
        stack.push({ node: pair.value, path: where });
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) stack.push({ node: item, path: [...path, i] });
    }
  }
  return offsets;
}
