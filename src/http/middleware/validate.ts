// Request bodies checked against their JSON Schema (compiled once): a 400 names the field (a name the
// client chose, such as an unknown field's, capped and escaped).

import type { Context } from 'koa';
import type {} from 'koa-bodyparser';
import { echoInput } from '../../echoed-input.js';
import { describeSchemaErrors, schemaValidator } from '../../schemas.js';

export function validBody<T>(ctx: Context, schema: string): T {
  const body: unknown = ctx.request.body;
  const validate = schemaValidator<T>(schema);
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) ctx.throw(400, 'request body must be a JSON object');
  if (!validate(body)) {
    const [first] = describeSchemaErrors(validate.errors ?? []);
    const where = first && first.path.length > 0 ? first.path.map((segment) => echoInput(String(segment))).join('.') : 'body';
    ctx.throw(400, `${where}: ${first?.message ?? 'is invalid'}`);
  }
  return body;
}
