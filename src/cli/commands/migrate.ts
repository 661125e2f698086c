// `email-trust migrate`: brings the database named by DATABASE_URL up to date.
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { databaseName, withStore } from '../with-store.js';

export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('bring the database (DATABASE_URL) up to date')
    .action(async () => {
      await withStore(async () => undefined);
      console.log(`database ${databaseName(loadConfig().databaseUrl)} is up to date`);
    });
}
