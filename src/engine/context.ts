// What a plugin's run receives for one request: its reads of facts, options, lists and the outside world,
// each checked against what the plugin declares (needs, projectLists, network), so a declaration cannot
// fall behind the code. A class: no closures to build for each of the plugins a request runs.

import { UndeclaredNeedError } from './errors.js';
import type { CheckOptions, NetworkAccess, Plugin, PluginContext, ReputationReader, RequestInput, VelocityReader } from './plugin.js';
import type { RequestRun } from './request-run.js';

export class RunContext implements PluginContext {
  readonly input: RequestInput;

  constructor(
    private readonly run: RequestRun,
    private readonly plugin: Plugin,
    /** The plugin's number (catalog.pluginIndex). */
    private readonly index: number,
    private readonly readable: ReadonlySet<string>,
  ) {
    this.input = run.request.input;
  }

  /**
   * The project's history. Its reads do not make the plugin late in `steps` (run-order.ts): the order stays
   * the order of the reads whichever database answers, and only network lookups move a plugin last.
   */
  get velocity(): VelocityReader {
    return this.run.request.services.velocity;
  }

  /** The project's labels; like velocity, a read that does not move the plugin in `steps`. */
  get reputation(): ReputationReader {
    return this.run.reputation;
  }

  get network(): NetworkAccess {
    if (this.plugin.network !== true) {
      throw new UndeclaredNeedError(
        `plugin ${this.plugin.id} read ctx.network, which it does not declare (Plugin.network): its facts would be stored as if they were no domain information`,
      );
    }
    const network = this.run.network;
    // Lookups are I/O: the plugin waits for them.
    if (network.enabled) this.run.order.waited(this.index);
    return network;
  }

  fact<T>(name: string): Promise<T | null> {
    if (!this.readable.has(name)) return Promise.reject(this.run.undeclared(this.plugin, name));
    return this.run.fact(name, this.index) as Promise<T | null>;
  }

  facts(names: readonly string[]): Promise<unknown[]> {
    for (const name of names) if (!this.readable.has(name)) return Promise.reject(this.run.undeclared(this.plugin, name));
    return this.run.readBy(names, this.index);
  }

  options(check: string): CheckOptions {
    return this.run.optionsFor(this.plugin, check);
  }

  projectList(list: string): Promise<ReadonlySet<string>> {
    if (!this.plugin.projectLists?.includes(list)) {
      return Promise.reject(new UndeclaredNeedError(`plugin ${this.plugin.id} read project list ${list}, which it does not declare in projectLists`));
    }
    return this.run.listEntries(list);
  }

  now(): number {
    return this.run.request.services.now();
  }
}
