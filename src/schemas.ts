// Every JSON Schema in schemas/ is added once, at start, to one ajv instance, beside the vocabulary schema
// (`vocabulary.schema.json`, which the files refer to with $ref), and compiled on first use.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { echoInput } from './echoed-input.js';
import { schemasDir } from './paths.js';
import { unknownNameHint } from './policy/did-you-mean.js';
import { ACTIONS, FEEDBACK_LABELS, MODES, ON_UNKNOWN, OPERATORS, PARENT_RULE_OPERATORS, SNAKE_CASE, VERDICT_ACTIONS } from './vocabulary.js';

const SCHEMA_BASE = 'https://email-trust.dev/schemas/';

/**
 * The vocabularies as JSON Schema definitions, under `vocabulary.schema.json#/definitions/<name>`: the sets of
 * src/vocabulary.ts, and the registry's steps, checked types and codes (src/engine/words.ts wordsOf) as enums. Without
 * the registry's words (the validator below, which checks requests and policies, never a step or a code)
 * those three are any snake_case word.
 */
export function vocabularySchema(words?: { steps: readonly string[]; checkedTypes: readonly string[]; codes: readonly string[] }) {
  const registered = (list: readonly string[] | undefined) => (list ? { enum: [...list] } : { type: 'string', pattern: SNAKE_CASE.source });
  return {
    $id: `${SCHEMA_BASE}vocabulary.schema.json`,
    title: 'email-trust vocabularies (built from src/vocabulary.ts and the plugin registry)',
    definitions: {
      action: { enum: [...ACTIONS] },
      verdictAction: { enum: [...VERDICT_ACTIONS] },
      mode: { enum: [...MODES] },
      onUnknown: { enum: [...ON_UNKNOWN] },
      operator: { enum: [...OPERATORS] },
      parentRuleOperator: { enum: [...PARENT_RULE_OPERATORS] },
      feedbackLabel: { enum: [...FEEDBACK_LABELS] },
      step: registered(words?.steps),
      checkedType: registered(words?.checkedTypes),
      code: registered(words?.codes),
    },
  };
}

// verbose: an error carries its parent schema, whose properties an unknown field's message lists.
// validateSchema off: every schema here is shipped (schemas/, the plugins' options), and test/schemas.test.ts holds
// each to JSON Schema's meta-schema; checking them again cost every process about 30 ms at start (decision 0048).
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true, validateSchema: false });
// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ajvFormats.default;
addFormats(ajv, ['ipv4', 'ipv6', 'date-time']);
for (const keyword of storableTextKeywords()) ajv.addKeyword(keyword);
ajv.addSchema(vocabularySchema());
for (const file of readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json'))) {
  ajv.addSchema(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as object);
}

/**
 * Keywords for text that is stored and indexed (schemas/verify-request.schema.json's email_address):
 * - `maxUtf8Bytes`: a cap in bytes, not characters. JSON Schema's maxLength counts characters, and 1,024
 *   four-byte characters are 4 KiB, past PostgreSQL's btree entry limit (2,704 bytes); the stored
 *   lower-cased, NFC forms may be three times the bytes (docs/api.md, Limits, says why 800).
 * - `noControlCharacters`: refuses U+0000–U+001F, U+007F and U+0080–U+009F. They are not valid in an
 *   address, and PostgreSQL cannot store U+0000 in text at all.
 */
function storableTextKeywords(): FuncKeywordDefinition[] {
  // ajv fills in where (instancePath, schemaPath).
  const refuse = (keyword: string, message: string, params: Record<string, unknown>) => [{ keyword, message, params }];
  const bytes: SchemaValidateFunction = (limit: number, data: string) => {
    if (Buffer.byteLength(data, 'utf8') <= limit) return true;
    bytes.errors = refuse('maxUtf8Bytes', `must be at most ${limit} bytes in UTF-8`, { limit });
    return false;
  };
  const controls: SchemaValidateFunction = (on: boolean, data: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    const at = on ? data.search(/[\u0000-\u001f\u007f-\u009f]/) : -1;
    if (at < 0) return true;
    const code = `U+${data.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
    controls.errors = refuse('noControlCharacters', `must not contain control characters (found ${code} at character ${at + 1})`, { at });
    return false;
  };
  return [
    { keyword: 'maxUtf8Bytes', type: 'string', schemaType: 'number', validate: bytes },
    { keyword: 'noControlCharacters', type: 'string', schemaType: 'boolean', validate: controls },
  ];
}

/** Validators by schema name: asked for on every request body, so looked up in ajv once (docs/decisions/0050). */
const byName = new Map<string, ValidateFunction>();

/** The compiled validator of schemas/<name>.schema.json. */
export function schemaValidator<T>(name: string): ValidateFunction<T> {
  let validate = byName.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${SCHEMA_BASE}${name}.schema.json`);
    if (!validate) throw new Error(`no schema ${name}.schema.json in ${schemasDir}`);
    byName.set(name, validate);
  }
  return validate as ValidateFunction<T>;
}

/** Compiles a schema given as an object (plugin check options); cached by identity. */
const bySchema = new WeakMap<object, ValidateFunction>();
export function validatorFor(schema: object): ValidateFunction {
  let validate = bySchema.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    bySchema.set(schema, validate);
  }
  return validate;
}

export interface SchemaProblem {
  /** Path segments into the validated value. */
  path: (string | number)[];
  message: string;
}

/**
 * Turns ajv's errors into one problem per place, deepest places first: a failed `oneOf` reports one
 * sentence instead of every branch's complaint. A place above a deeper problem keeps its own problems
 * (a missing field beside a bad value deeper down) unless they are a failed `oneOf`/`anyOf`'s branches.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], oneOfHint = 'does not match any allowed form'): SchemaProblem[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const path = error.instancePath;
    const list = byPath.get(path) ?? [];
    list.push(error);
    byPath.set(path, list);
  }
  const paths = [...byPath.keys()];
  // Whether a place has one inside it, by halving over the places sorted (a policy's can number thousands).
  const sorted = [...paths].sort();
  const isDeepest = (p: string) => {
    const inside = `${p}/`;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((sorted[middle] as string) < inside) low = middle + 1;
      else high = middle;
    }
    return !(sorted[low] ?? '').startsWith(inside);
  };
  const branchNoise = (p: string) => (byPath.get(p) ?? []).some((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const deepest = paths.filter(isDeepest);
  const above = paths.filter((p) => !isDeepest(p) && !branchNoise(p));
  const problems: SchemaProblem[] = [];
  for (const path of [...deepest, ...above]) {
    const list = byPath.get(path) ?? [];
    const segments = path === '' ? [] : path.slice(1).split('/').map(unescapePointer);
    if (list.some((e) => e.keyword === 'oneOf')) {
      problems.push({ path: segments, message: oneOfHint });
      continue;
    }
    const seen = new Set<string>();
    for (const error of list) {
      if (error.keyword === 'if' || error.keyword === 'anyOf') continue;
      const { path: at, message } = describeOne(error, segments);
      const key = `${at.join('/')}|${message}`;
      if (!seen.has(key)) problems.push({ path: at, message });
      seen.add(key);
    }
  }
  return problems;
}

function describeOne(error: ErrorObject, segments: (string | number)[]): SchemaProblem {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      // The name is the client's (or a policy author's): quoted capped and escaped.
      const name = String(p.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return { path: [...segments, name], message: `unknown field "${echoInput(name)}"${unknownNameHint(name, known)}` };
    }
    case 'required':
      return { path: [...segments, String(p.missingProperty)], message: 'is required' };
    case 'format':
      return { path: segments, message: `is not a valid ${String(p.format).toUpperCase().replace('IPV', 'IPv')} address` };
    case 'enum':
      return { path: segments, message: `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}` };
    case 'type':
      return { path: segments, message: `must be of type ${String(p.type)}` };
    case 'not':
      return { path: segments, message: 'has fields that may not appear together' };
    default:
      return { path: segments, message: error.message ?? 'is invalid' };
  }
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function pointer(path: readonly (string | number)[]): string {
  return path.length === 0 ? '' : `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
