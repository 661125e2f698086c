// Every JSON Schema the service compiles is shipped, so src/schemas.ts does not check them against the
// meta-schema at each start: this test does, for the files in schemas/ and every check's options.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { registry } from '../plugins/index.js';
import { schemasDir } from '../src/paths.js';

// As src/schemas.ts builds its instance, with the meta-schema check on.
const ajv = new Ajv({ strict: true, allowUnionTypes: true, validateSchema: true });
ajv.addKeyword({ keyword: 'maxUtf8Bytes', type: 'string', schemaType: 'number', validate: () => true });
ajv.addKeyword({ keyword: 'noControlCharacters', type: 'string', schemaType: 'boolean', validate: () => true });
ajv.addFormat('ipv4', true).addFormat('ipv6', true).addFormat('date-time', true);

/** The meta-schema's complaints about `schema`, as "path message" lines; none when it is a valid draft-07 schema. */
function metaProblems(schema: object): string[] {
  return ajv.validateSchema(schema) ? [] : (ajv.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const files = readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json'));
const options = registry.flatMap((plugin) =>
  Object.entries(plugin.checks ?? {}).flatMap(([name, check]) => (check.options ? [[`${plugin.id} ${name}`, check.options] as const] : [])),
);

describe('the schemas the service compiles', () => {
  it('are found: the files of schemas/ and some checks with options', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(options.length).toBeGreaterThan(0);
  });

  it.each(files)('schemas/%s is a valid JSON Schema', (file) => {
    expect(metaProblems(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as object)).toEqual([]);
  });

  it.each(options)('the options of %s are a valid JSON Schema', (_name, schema) => {
    expect(metaProblems(schema)).toEqual([]);
  });

  it('a schema the meta-schema refuses is found', () => {
    expect(metaProblems({ type: 'object', properties: { limit: { type: 'integr' } } })).not.toEqual([]);
    expect(metaProblems({ type: 'object', required: 'limit' })).not.toEqual([]);
  });
});
