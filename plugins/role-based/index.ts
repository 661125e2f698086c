// Role-based address: the local part names a function or a group (info, support, noreply), not a person.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { dataLists, readList } from '../plugin-data.js';

/** Role names in their compared form (lower case, no ".", "-" or "_"). */
const ROLES = readList('role-based', 'roles.txt');

/**
 * The compared form of a local part: unquoted, lower-cased, without its plus tag and without the
 * separators ".", "-" and "_" (No.Reply+x, no-reply and no_reply are all "noreply").
 */
function roleKey(localPart: string): string {
  let text = localPart;
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1).replaceAll('\\', '');
  const plus = text.indexOf('+');
  if (plus >= 0) text = text.slice(0, plus);
  let key = '';
  for (const char of text.toLowerCase()) if (char !== '.' && char !== '-' && char !== '_') key += char;
  return key;
}

const plugin: Plugin = {
  id: 'role-based',
  description: 'Whether the local part is a role (admin, info, support, noreply, postmaster, ...) rather than a person.',
  steps: ['role_based_address'],
  codes: {
    local_is_role_based: { error: 'classification', warning: 'the local part is a role (support, info, noreply), not a person' },
  },
  facts: {
    is_role_based_domain: {
      type: 'boolean',
      description: 'The whole local part, lower-cased without plus tag and separators, is a role name (the spec names the flag after the domain).',
      expose: 'flag',
    },
    role_name: { type: 'string', description: 'The role the local part matched, in compared form (noreply for No.Reply+x); null when none.' },
  },
  checks: {
    role_based_address: {
      description: 'The local part is a role name, not a person.',
      when: { fact: 'is_role_based_domain', operator: 'equal', value: true },
      code: 'local_is_role_based',
      checkedType: 'role_based_address',
    },
  },
  needs: ['structure'],
  data: dataLists('role-based', [{ file: 'roles.txt', entries: ROLES.size }]),
  async run(ctx): Promise<FactValues> {
    const localPart = await ctx.fact('local_part');
    if (typeof localPart !== 'string') return {};
    const key = roleKey(localPart);
    const role = ROLES.has(key) ? key : null;
    return { is_role_based_domain: role !== null, role_name: role };
  },
};

export default plugin;
