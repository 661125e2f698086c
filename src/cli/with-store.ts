// One command's use of the store named by DATABASE_URL: opened, brought up to date, always closed.
import { loadConfig } from '../config.js';
import { openDatabase, type Store } from '../store/database.js';

export async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openDatabase(loadConfig().databaseUrl);
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}
