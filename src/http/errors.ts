// Error bodies, in the spec's two shapes: verify and ip answer {code, error, id, status: false};
// intelligence and fingerprint answer {error, code}.
import { randomUUID } from 'node:crypto';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type ErrorShape = 'status' | 'plain';

export function errorShapeFor(path: string): ErrorShape {
  return path.startsWith('/v1/intelligence') || path.startsWith('/v1/fingerprint') ? 'plain' : 'status';
}

export function errorBody(shape: ErrorShape, code: number, error: string, id: string = randomUUID()): Record<string, unknown> {
  return shape === 'plain' ? { error, code } : { code, error, id, status: false };
}
