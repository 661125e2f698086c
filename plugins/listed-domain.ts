// What the domain-list checks (disposable, known-abuse, spam-trap) share: the project's `add` and
// `exempt` options, the names a domain is looked up under, and the matching order. Each plugin still
// declares its own facts and check; this module holds only the common mechanics.
import type { CheckOptions, PluginContext } from '../src/engine/plugin.js';
import { domainAndParents } from '../src/host-name.js';
import { asciiDomainOf } from './plugin-data.js';

const MAX_ENTRIES = 10_000;

const domainListSchema = (description: string) => ({
  type: 'array',
  maxItems: MAX_ENTRIES,
  description,
  items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$' },
});

/** JSON Schema of a domain-list check's options: `{ add, exempt }`, each up to 10,000 lower-case ASCII domains. */
export function projectListsSchema(what: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      add: domainListSchema(`Domains the project treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
      exempt: domainListSchema(`Domains the project never treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
    },
    additionalProperties: false,
  };
}

export const PROJECT_LISTS_DEFAULTS: CheckOptions = { add: [], exempt: [] };

interface ProjectLists {
  add: ReadonlySet<string>;
  exempt: ReadonlySet<string>;
}

// Keyed by the options object, which a compiled policy keeps for its lifetime: sets are built once per policy.
const projectListsByOptions = new WeakMap<CheckOptions, ProjectLists>();

function domainSet(value: unknown): Set<string> {
  if (!Array.isArray(value)) return new Set();
  return new Set(value.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.toLowerCase()));
}

function projectLists(options: CheckOptions): ProjectLists {
  let lists = projectListsByOptions.get(options);
  if (!lists) {
    lists = { add: domainSet(options.add), exempt: domainSet(options.exempt) };
    projectListsByOptions.set(options, lists);
  }
  return lists;
}

/**
 * The names the address's domain is looked up under: its ASCII form, then each parent up to the
 * registrable domain. Null when there is nothing to look up (invalid address, literal, no ASCII form).
 */
export async function lookupNames(ctx: PluginContext): Promise<string[] | null> {
  if ((await ctx.fact<boolean>('valid_address_format')) !== true) return null;
  const ascii = await asciiDomainOf(ctx);
  if (ascii === null) return null;
  const registrable = await ctx.fact<string>('registrable_domain');
  return domainAndParents(ascii, typeof registrable === 'string' ? registrable : null);
}

/**
 * The entry that matched, or null: the project's entries first, most specific name first (exempt wins a
 * tie); then `never` (names no list may flag); then the shipped list.
 */
export function matchListed(names: readonly string[], options: CheckOptions, shipped: ReadonlySet<string>, never?: ReadonlySet<string>): string | null {
  const lists = projectLists(options);
  for (const name of names) {
    if (lists.exempt.has(name)) return null;
    if (lists.add.has(name)) return name;
  }
  if (never && names.some((name) => never.has(name))) return null;
  return names.find((name) => shipped.has(name)) ?? null;
}
