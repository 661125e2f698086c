// The registry indexed: which plugin emits which fact and offers which check, and which facts each
// plugin may read. Building it checks the contract's promises that hold for the whole registry:
// ids, facts and checks are unique, every need is registered and the needs have no cycle.
import type { FactExposure, FactSpec, FactValues, Plugin } from './plugin.js';

export class RegistryError extends Error {
  override name = 'RegistryError';
}

export class FactCatalog {
  /** Plugin id → plugin, in registry order. */
  readonly plugins: ReadonlyMap<string, Plugin>;
  /** Fact name → the plugin that emits it. */
  readonly owner: ReadonlyMap<string, Plugin>;
  /** Check name → the plugin that offers it. */
  readonly checkOwner: ReadonlyMap<string, Plugin>;
  /** Project list name (`email-trust project lists`) → the plugin that reads it, in registry order. */
  readonly listOwner: ReadonlyMap<string, Plugin>;
  /**
   * Fact name → its number, 0 to factNames.length - 1, and plugin → its number (registry order): a request's
   * state (run.ts) keeps its facts and plugins in arrays by these numbers rather than in maps it fills anew.
   */
  readonly factIndex: ReadonlyMap<string, number>;
  readonly factNames: readonly string[];
  /** By fact number: the plugin that emits it, and that plugin's number. */
  readonly factOwners: readonly Plugin[];
  readonly factOwnerIndex: readonly number[];
  readonly pluginIndex: ReadonlyMap<Plugin, number>;
  /** By fact number: its value in its plugin's facts (null when absent), made once so that a read of a fact not yet computed makes no closure. */
  readonly factOf: ReadonlyArray<(values: FactValues) => unknown>;
  /** By plugin number: the facts it may read through ctx.fact (those of the plugins it names in `needs`). */
  private readonly readable: ReadonlyArray<ReadonlySet<string>>;
  /** By plugin number: its facts' names and unknownValues, walked on every run it makes (anyKnown). */
  private readonly emitted: ReadonlyArray<ReadonlyArray<readonly [string, readonly string[] | undefined]>>;

  constructor(registry: readonly Plugin[]) {
    const plugins = new Map<string, Plugin>();
    const owner = new Map<string, Plugin>();
    const checkOwner = new Map<string, Plugin>();
    const listOwner = new Map<string, Plugin>();
    for (const plugin of registry) {
      if (plugins.has(plugin.id)) throw new RegistryError(`plugin ${plugin.id} is registered twice`);
      plugins.set(plugin.id, plugin);
      claim(owner, Object.keys(plugin.facts), plugin, 'fact', 'emitted');
      claim(checkOwner, Object.keys(plugin.checks), plugin, 'check', 'offered');
      claim(listOwner, plugin.projectLists ?? [], plugin, 'project list', 'read');
    }
    this.plugins = plugins;
    this.owner = owner;
    this.checkOwner = checkOwner;
    this.listOwner = listOwner;
    this.factNames = [...owner.keys()];
    this.factIndex = new Map(this.factNames.map((name, i) => [name, i]));
    this.factOwners = this.factNames.map((name) => owner.get(name) as Plugin);
    this.pluginIndex = new Map(registry.map((plugin, i) => [plugin, i]));
    this.factOwnerIndex = this.factOwners.map((plugin) => this.pluginIndex.get(plugin) as number);
    this.factOf = this.factNames.map((name) => (values: FactValues) => values[name] ?? null);
    for (const plugin of registry) {
      for (const need of plugin.needs) {
        const needed = plugins.get(need);
        if (!needed) throw new RegistryError(`plugin ${plugin.id} needs ${need}, which is not registered`);
        if (needed === plugin) throw new RegistryError(`plugin ${plugin.id} names itself in needs`);
      }
    }
    for (const plugin of registry) this.assertNoCycle(plugin, []);
    for (const plugin of registry) {
      if (plugin.network && !plugin.io) throw new RegistryError(`plugin ${plugin.id} declares network but not io: a network lookup is I/O`);
    }
    this.readable = registry.map((plugin) => new Set(plugin.needs.flatMap((id) => Object.keys(plugins.get(id)?.facts ?? {}))));
    this.emitted = registry.map((plugin) => Object.entries(plugin.facts).map(([name, spec]) => [name, spec.unknownValues] as const));
  }

  /** Whether some fact of plugin number `plugin` (pluginIndex) says something in `values` (see isKnown): the plugin applied to the request. */
  anyKnown(plugin: number, values: FactValues): boolean {
    const facts = this.emitted[plugin] ?? [];
    for (let k = 0; k < facts.length; k++) {
      const [name, unknownValues] = facts[k] as (typeof facts)[number];
      const value = values[name];
      if (value !== null && value !== undefined && !(typeof value === 'string' && unknownValues?.includes(value))) return true;
    }
    return false;
  }

  /** Whether a value of fact `name` says something: neither null nor one of the fact's unknownValues ("could not tell"). */
  isKnown(name: string, value: unknown): boolean {
    return value !== null && value !== undefined && !this.unknownValue(name, value);
  }

  /** Whether `value` is one of the unknownValues of fact `name` (a string such as not_checked). */
  private unknownValue(name: string, value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const unknownValues = this.owner.get(name)?.facts[name]?.unknownValues;
    return unknownValues?.includes(value) === true;
  }

  /** The facts plugin number `plugin` (pluginIndex) may read through ctx.fact: those of the plugins it names in `needs`. */
  readableBy(plugin: number): ReadonlySet<string> {
    return this.readable[plugin] ?? new Set();
  }

  private assertNoCycle(plugin: Plugin, path: readonly string[]): void {
    if (path.includes(plugin.id)) throw new RegistryError(`plugins need each other in a cycle: ${[...path, plugin.id].join(' → ')}`);
    for (const need of plugin.needs) this.assertNoCycle(this.plugins.get(need) as Plugin, [...path, plugin.id]);
  }
}

function claim(index: Map<string, Plugin>, names: readonly string[], plugin: Plugin, what: string, verb: string): void {
  for (const name of names) {
    const other = index.get(name);
    if (other) throw new RegistryError(`${what} ${name} is ${verb} by both ${other.id} and ${plugin.id}`);
    index.set(name, plugin);
  }
}

/** Whether a fact appears in the response as `as` (a fact may appear in several places). */
export function exposedAs(spec: FactSpec, as: FactExposure): boolean {
  return spec.expose === as || (Array.isArray(spec.expose) && spec.expose.includes(as));
}
