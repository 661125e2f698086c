// The domain-list checks (disposable, known-abuse, spam-trap) differ only in data: one factory makes each
// of them. A listed-domain plugin has a flag fact, a match fact and one check, the project's own entries
// (the check's `add` and `exempt` options, and the project lists `<id>` and `not-<id>` kept in the
// database), and looks the domain and its parents (up to the registrable domain) up in its lists, then,
// when one is given, asks another plugin that lists domains (known-abuse: the DNS blocklists).

import type { CheckOptions, Condition, DataList, FactValues, Plugin, PluginContext } from '../src/engine/plugin.js';
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
function projectListsSchema(what: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      add: domainListSchema(`Domains the project treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
      exempt: domainListSchema(`Domains the project never treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
    },
    additionalProperties: false,
  };
}

const PROJECT_LISTS_DEFAULTS: CheckOptions = { add: [], exempt: [] };

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
async function lookupNames(ctx: PluginContext): Promise<string[] | null> {
  if ((await ctx.fact('valid_address_format')) !== true) return null;
  const ascii = await asciiDomainOf(ctx);
  if (ascii === null) return null;
  const registrable = await ctx.fact('registrable_domain');
  return domainAndParents(ascii, typeof registrable === 'string' ? registrable : null);
}

/** The project's own entries: from the policy's options and from its lists in the database alike. */
interface OwnEntries {
  add: readonly ReadonlySet<string>[];
  exempt: readonly ReadonlySet<string>[];
}

/** Exempted: by the project's own entries or by `never`, whatever any list says. */
const EXEMPTED = false;

/**
 * The entry that matched, EXEMPTED, or null when no list has the domain: the project's own entries first
 * (policy options and project lists alike), most specific name first, exempt winning a tie; then `never`
 * (names no list may flag); then the shipped list.
 */
function matchListed(names: readonly string[], own: OwnEntries, shipped: ReadonlySet<string>, never?: ReadonlySet<string>): string | null | typeof EXEMPTED {
  for (const name of names) {
    if (own.exempt.some((set) => set.has(name))) return EXEMPTED;
    if (own.add.some((set) => set.has(name))) return name;
  }
  if (never && names.some((name) => never.has(name))) return EXEMPTED;
  return names.find((name) => shipped.has(name)) ?? null;
}

export interface ListedDomainSpec {
  /** Plugin id (its folder). */
  id: string;
  description: string;
  /** The check's name, a step identifier, and its checked type. */
  check: string;
  checkDescription: string;
  /** The flag fact (`is_<what>_domain`) and what it means. */
  flag: string;
  flagDescription: string;
  /** The fact naming the entry that matched (`<what>_match`). */
  match: string;
  /** What listed domains are, for the options' descriptions ("disposable", "abuse sources"). */
  what: string;
  /** The code the check reports (not in the interface, which gives these checks none): a classification error, or a warning meaning `codeMeaning`. */
  code: string;
  codeMeaning: string;
  /** The shipped list. */
  listed: ReadonlySet<string>;
  /** Names the shipped list never flags, whatever it says (big providers, privacy relays). */
  never?: ReadonlySet<string>;
  /** The plugin's data declaration (see plugin-data.ts dataLists). */
  data: readonly DataList[];
  /**
   * A condition on another plugin's facts that, when it holds, keeps the check from firing (the flag still
   * says what the list says): a listed one-slip typo of a big provider (gmial.com) is the typo check's business.
   */
  unless?: { plugin: string; when: Condition };
  /**
   * Another plugin that lists domains too (a DNS blocklist): asked only when no list has the domain and the
   * project has not exempted it; `lists` says from its facts (read in order) whether it lists the registrable
   * domain, which is then the match.
   */
  listedBy?: { plugin: string; facts: readonly string[]; lists(values: readonly unknown[]): boolean };
}

/** The project list of domains a listed-domain plugin never flags (`not-disposable`); its additions are the list named by its id. */
export function exemptListName(id: string): string {
  return `not-${id}`;
}

/** A plugin flagging domains on a list, with the project's additions and exemptions. */
export function listedDomainPlugin(spec: ListedDomainSpec): Plugin {
  const exemptList = exemptListName(spec.id);
  return {
    id: spec.id,
    description: spec.description,
    steps: [spec.check],
    codes: { [spec.code]: { error: 'classification', warning: spec.codeMeaning } },
    facts: {
      [spec.flag]: { type: 'boolean', description: spec.flagDescription, expose: 'flag' },
      [spec.match]: {
        type: 'string',
        description: spec.listedBy
          ? `The listed (or project-added) domain that matched, or the registrable domain ${spec.listedBy.plugin} lists; null when not listed.`
          : 'The listed (or project-added) domain that matched; null when not listed.',
      },
    },
    checks: {
      [spec.check]: {
        description: spec.checkDescription,
        when: spec.unless
          ? { all: [{ fact: spec.flag, operator: 'equal', value: true }, { not: spec.unless.when }] }
          : { fact: spec.flag, operator: 'equal', value: true },
        code: spec.code,
        checkedType: spec.check,
        options: projectListsSchema(spec.what),
        defaults: PROJECT_LISTS_DEFAULTS,
      },
    },
    needs: ['structure', 'idn', 'tld', ...(spec.unless ? [spec.unless.plugin] : []), ...(spec.listedBy ? [spec.listedBy.plugin] : [])],
    projectLists: [spec.id, exemptList],
    data: spec.data,
    async run(ctx): Promise<FactValues> {
      const names = await lookupNames(ctx);
      if (names === null) return {};
      const options = projectLists(ctx.options(spec.check));
      const [added, exempt] = await Promise.all([ctx.projectList(spec.id), ctx.projectList(exemptList)]);
      const own = { add: [options.add, added], exempt: [options.exempt, exempt] };
      let matched = matchListed(names, own, spec.listed, spec.never);
      if (matched === null && spec.listedBy?.lists(await ctx.facts(spec.listedBy.facts))) matched = names[names.length - 1] as string;
      return matched === EXEMPTED ? { [spec.flag]: false, [spec.match]: null } : { [spec.flag]: matched !== null, [spec.match]: matched };
    },
  };
}
