// The thread a reload compiles the IP tables on (lists.ts, reloadTables): the lists' texts in, the compiled
// tables out to the cache, where the event loop's thread reads them back without compiling.
import { workerData } from 'node:worker_threads';
import { compileTables, tablesKeyFor } from './lists.js';
import { writeCachedTables } from './table-cache.js';

const { cacheDir, texts } = workerData as { cacheDir: string; texts: string[] };
writeCachedTables(cacheDir, tablesKeyFor(texts), compileTables(texts));
