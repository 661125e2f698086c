// A policy as the CLI's commands take it (`verify --policy`, `policy check|test|explain`): a file, or the
// name of a policy in POLICIES_DIR or the shipped ones. One reading for every command.
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { FactCatalog } from '../engine/catalog.js';
import { PolicyBook } from '../policy/book.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { loadPolicy } from '../policy/load.js';
import { policyFolders } from '../policy/named-policies.js';
import { UsageError } from './errors.js';

/** Whether `given` names a file rather than a policy: it exists as one, or reads like a path. */
export function isPolicyFile(given: string): boolean {
  if (existsSync(given)) return statSync(given).isFile();
  return /\.ya?ml$/i.test(given) || given.includes('/');
}

/**
 * The compiled policy `given` names: a file (loaded; a PolicyError for an invalid one), or a name from
 * the policies folders (`policiesDirOf`, read only for a name). A missing file or an unknown name is a UsageError saying where it looked. A file's
 * policy is named by its file name (`strict.yaml`, as `policy check|test|explain` print it) or, with `stem`,
 * without the extension (`strict`, as `verify` records it).
 */
export function policyArgument(given: string, policiesDirOf: string | (() => string), catalog: FactCatalog, options: { stem?: boolean } = {}): CompiledPolicy {
  if (isPolicyFile(given)) {
    if (!existsSync(given)) throw new UsageError(`${given}: no such policy file`);
    const name = options.stem ? basename(given).replace(/\.ya?ml$/i, '') : basename(given);
    return loadPolicy({ name, file: given }, catalog);
  }
  // Only a name needs the configuration (POLICIES_DIR): a file is checked whatever the environment says.
  const policiesDir = typeof policiesDirOf === 'string' ? policiesDirOf : policiesDirOf();
  const policies = PolicyBook.load(policiesDir, catalog);
  const named = policies.byName(given);
  if (named) return named;
  throw new UsageError(
    `no policy "${given}" in ${policyFolders(policiesDir)} (policies: ${policies.names().join(', ')}); add ${given}.yaml to POLICIES_DIR, or give a policy file`,
  );
}
