// What every operation of the service is given by the composition root.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Network } from '../network/index.js';
import type { PolicyBook } from '../policy/book.js';
import type { Store } from '../store/database.js';

export interface ServiceContext {
  store: Store;
  policies: PolicyBook;
  network: Network;
  log: Logger;
  config: Config;
  now(): number;
}
