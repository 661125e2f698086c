// The JSON Schemas of schemas/ (draft-07 files that refer to each other by file name) as OpenAPI 3.1
// components: one component per file and per definition a schema reaches, every $ref rewritten to
// `#/components/schemas/<Name>`, $schema and $id dropped (an $id would move the base of every $ref
// below it), this service's own keywords renamed to `x-` extensions that other tools ignore, and an enum
// without a type given the type of its values (code generators make a string enum only of `type: string`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../../paths.js';
import { vocabularySchema } from '../../schemas.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** ajv keywords of src/schemas.ts, as the document spells them. */
const OWN_KEYWORDS: Readonly<Record<string, string>> = {
  maxUtf8Bytes: 'x-max-utf8-bytes',
  noControlCharacters: 'x-no-control-characters',
};

export class SchemaComponents {
  readonly schemas: Record<string, JsonObject> = {};
  /** Component name → where it came from (`file#definition`), to refuse two sources for one name. */
  private readonly origins = new Map<string, string>();
  private readonly files: Map<string, JsonObject>;

  /** `vocabulary`: the vocabulary schema with the registry's words (src/schemas.ts vocabularySchema). */
  constructor(vocabulary: object = vocabularySchema()) {
    this.files = new Map([['vocabulary.schema.json', vocabulary as JsonObject]]);
  }

  /** Adds schemas/<file> as the component `name`, and whatever it refers to; returns a $ref to it. */
  addFile(file: string, name: string): JsonObject {
    this.add(name, `${file}#`, () => this.rewrite(this.file(file), file));
    return ref(name);
  }

  /** Adds one definition of schemas/<file> (named after it, PascalCase) and what it refers to; returns a $ref to it. */
  addDefinition(file: string, definition: string): JsonObject {
    const name = pascalCase(definition);
    this.add(name, `${file}#${definition}`, () => {
      const found = (this.file(file).definitions as JsonObject | undefined)?.[definition];
      if (!isObject(found)) throw new Error(`schemas/${file} has no definition ${definition}`);
      return this.rewrite(found, file);
    });
    return ref(name);
  }

  private add(name: string, origin: string, build: () => JsonObject): void {
    const known = this.origins.get(name);
    if (known === origin) return;
    if (known) throw new Error(`component ${name} would come from both ${known} and ${origin}`);
    this.origins.set(name, origin);
    this.schemas[name] = build();
  }

  private file(file: string): JsonObject {
    let schema = this.files.get(file);
    if (!schema) {
      schema = JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as JsonObject;
      this.files.set(file, schema);
    }
    return schema;
  }

  private rewrite(node: JsonObject, file: string): JsonObject {
    const out: JsonObject = Array.isArray(node.enum) && node.type === undefined ? { type: enumType(node.enum) } : {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$schema' || key === '$id' || key === 'definitions') continue;
      if (key === '$ref' && typeof value === 'string') {
        out.$ref = this.follow(value, file).$ref as string;
        continue;
      }
      out[OWN_KEYWORDS[key] ?? key] = this.rewriteValue(value, file);
    }
    return out;
  }

  private rewriteValue(value: Json, file: string): Json {
    if (Array.isArray(value)) return value.map((item) => this.rewriteValue(item, file));
    return isObject(value) ? this.rewrite(value, file) : value;
  }

  /** `other.schema.json#/definitions/x`, `#/definitions/x` or `other.schema.json` → the component's $ref. */
  private follow(target: string, file: string): JsonObject {
    const [where, pointer = ''] = target.split('#');
    const targetFile = where === '' ? file : (where as string);
    if (pointer === '') return this.addFile(targetFile, pascalCase(targetFile.replace(/\.schema\.json$/, '')));
    const definition = /^\/definitions\/([A-Za-z0-9_]+)$/.exec(pointer)?.[1];
    if (!definition) throw new Error(`schemas/${file}: cannot follow $ref ${target} (only whole files and /definitions/<name>)`);
    return this.addDefinition(targetFile, definition);
  }
}

/** The JSON type of an enum's values: `string` for a list of strings, a list of types for a mixed one. */
function enumType(values: readonly Json[]): Json {
  const types = [...new Set(values.map((value) => (value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value)))];
  return types.length === 1 ? (types[0] as string) : types;
}

export function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pascalCase(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase());
}
