// Does a real answer match what the OpenAPI document says of its operation? The status must be one the
// operation documents, its required headers present, its content type documented and its body valid
// against the documented schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it). Returns the
// problems found, [] when it conforms.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read field by field
type Document = Record<string, any>;

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

const DOCUMENT_ID = 'https://email-trust.test/openapi.json';

export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    ajvFormats.default(this.ajv, ['ipv4', 'ipv6']);
    // The whole document, so a response schema's #/components/schemas/… refs resolve inside it.
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  }

  problems(method: string, path: string, answer: Answer): string[] {
    const where = `${method} ${path} → ${answer.status}`;
    const operation = this.document.paths?.[path]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${path} is not in the document`];
    const response = operation.responses?.[String(answer.status)] ?? operation.responses?.default;
    if (!response) return [`${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    const found: string[] = [];
    for (const [name, header] of Object.entries<{ required?: boolean }>(response.headers ?? {})) {
      if (header.required && !answer.headers.has(name)) found.push(`${where}: required header ${name} is missing`);
    }
    const type = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (!response.content) {
      if (answer.text !== '') found.push(`${where}: a body where the document has none`);
      return found;
    }
    if (!(type in response.content)) return [...found, `${where}: content type "${type}" not documented (${Object.keys(response.content).join(', ')})`];
    if (type !== 'application/json') return found;
    const validate = this.validator(path, method, answer.status in operation.responses ? String(answer.status) : 'default');
    if (!validate(answer.body)) {
      for (const error of validate.errors ?? []) found.push(`${where}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
    }
    return found;
  }

  /** Problems of a request body against the operation's documented request schema ([] when it is valid or the operation takes none). */
  requestProblems(method: string, path: string, body: unknown): string[] {
    const operation = this.document.paths?.[path]?.[method.toLowerCase()];
    if (!operation?.requestBody?.content?.['application/json']) return [];
    const validate = this.compile(['paths', path, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema']);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${method} ${path} request: body${error.instancePath} ${error.message}`);
  }

  private validator(path: string, method: string, status: string): ValidateFunction {
    return this.compile(['paths', path, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema']);
  }

  private compile(segments: string[]): ValidateFunction {
    const pointer = segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}
