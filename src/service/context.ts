// What every operation of the service is given by the composition root.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { FactCatalog } from '../engine/catalog.js';
import type { RunServices } from '../engine/run.js';
import { throttled } from '../log-throttle.js';
import type { Network } from '../network/index.js';
import type { PolicyBook } from '../policy/book.js';
import type { PolicyChecks } from '../policy/check-thread.js';
import type { Store } from '../store/database.js';
import { reputationProjects } from '../store/labels.js';
import type { Project } from '../store/projects.js';
import { isUnavailable, outageReason } from '../store/unavailable.js';

export interface ServiceContext {
  store: Store;
  policies: PolicyBook;
  /** Policy texts a request brings (the playground's), checked off the event loop. */
  policyChecks: PolicyChecks;
  /** The plugin registry indexed: what a policy text given at run time (the playground's) compiles against. */
  catalog: FactCatalog;
  network: Network;
  log: Logger;
  config: Config;
  now(): number;
}

/**
 * What a project's request gives its plugins: the project's history and labels (with the deployment's shared
 * counts when SHARED_REPUTATION is on and the project shares), its own domain lists, the network (persisting
 * its answers unless told not to), the clock.
 */
export function runServices(ctx: ServiceContext, project: Project, persist: boolean): RunServices {
  const projectId = project.id;
  return {
    velocity: ctx.store.events.velocityReader(projectId),
    reputation: ctx.store.labels.reputationReader(reputationProjects(projectId, ctx.config.sharedReputation && project.sharesReputation)),
    lists: ctx.store.projectLists.reader(project),
    network: ctx.network.forRequest({ persist, now: ctx.now() }),
    now: ctx.now,
    onPluginError: (plugin, error) => {
      // A database outage is not the plugin's bug: a warning, at most one a second (the request itself then answers 503).
      if (isUnavailable(error)) {
        const reason = outageReason(error);
        throttled(ctx.log).write(
          'warn',
          `plugin failed: ${plugin}: ${reason}`,
          { plugin, project: projectId, reason },
          'plugin failed: database unavailable; its facts are unknown',
        );
      } else ctx.log.error({ err: error, plugin, project: projectId }, 'plugin failed; its facts are unknown');
    },
  };
}
