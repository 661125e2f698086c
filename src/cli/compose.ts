// The composition root: builds the config, opens the store, takes the plugin registry and hands
// them down. Nothing below src/cli knows where its parts come from.
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { registry } from '../../plugins/index.js';
import type { Config } from '../config.js';
import { FactCatalog } from '../engine/catalog.js';
import { createApp } from '../http/app.js';
import { buildOpenApiDocument } from '../http/openapi/document.js';
import { createNetwork } from '../network/index.js';
import { PolicyBook } from '../policy/book.js';
import type { ServiceContext } from '../service/context.js';
import { FingerprintSealer } from '../service/fingerprint.js';
import { createOperations } from '../service/operations.js';
import { openDatabase, type Store } from '../store/database.js';
import { createLogger } from './logger.js';

export { createLogger } from './logger.js';

export interface Service {
  config: Config;
  log: Logger;
  store: Store;
  policies: PolicyBook;
  catalog: FactCatalog;
  app: Koa;
  close(): Promise<void>;
}

export interface ComposeOptions {
  log?: Logger;
  now?: () => number;
}

/** Loads policies first (an invalid one stops the start before anything is opened), then the store. */
export async function composeService(config: Config, options: ComposeOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config);
  const catalog = new FactCatalog(registry);
  const policies = PolicyBook.load(config.policiesDir, catalog);
  const apiDescription = buildOpenApiDocument({ catalog, config });
  const store = await openDatabase(config.databaseUrl);
  await store.migrate();
  const now = options.now ?? Date.now;
  const network = createNetwork(config.network, store.domainFacts, log);
  const ctx: ServiceContext = { store, policies, network, log, config, now };
  let keys = config.fingerprintKeys;
  if (keys.length === 0) {
    log.warn('FINGERPRINT_KEYS is not set: fingerprints are sealed with a key made at start and will not open after a restart or on another instance');
    keys = [{ id: 'eph', key: randomBytes(32) }];
  }
  const operations = createOperations(ctx, {
    sealer: new FingerprintSealer(keys, config.fingerprintTtlSeconds),
  });
  const app = createApp({ config, log, access: store.keys, origins: store.projects, operations, apiDescription });
  const close = async () => {
    await network.close();
    await store.close();
  };
  return { config, log, store, policies, catalog, app, close };
}
