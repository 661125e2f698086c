// Who is calling: a key of the right kind, not revoked, names its project.
import type { Authenticated, KeyKind } from '../store/keys.js';

export interface Access {
  authenticate(token: string, kind: KeyKind): Promise<Authenticated | null>;
}
