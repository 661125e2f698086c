// Migrations are listed here in order, as code: they load the same way from src/ (vitest) and
// dist/ (tsc), with no directory scan. A new migration is one module plus one line.
import type { Knex } from 'knex';
import * as initial from './0001-initial.js';
import * as eventsEmailLower from './0002-events-email-lower.js';
import * as eventsPolicyRevision from './0003-events-policy-revision.js';
import * as velocityCounters from './0004-velocity-counters.js';
import * as projectOrigins from './0005-project-origins.js';
import * as eventsBigintId from './0006-events-bigint-id.js';
import * as projectLists from './0007-project-lists.js';
import * as projectQuota from './0008-project-quota.js';
import * as eventsRecordedFacts from './0009-events-recorded-facts.js';
import * as fingerprintKeys from './0010-fingerprint-keys.js';
import * as apiKeyLabels from './0011-api-key-labels.js';
import * as eventsAddressIndexesPartial from './0012-events-address-indexes-partial.js';
import * as eventsFingerprintToken from './0013-events-fingerprint-token.js';
import * as eventsDecisions from './0014-events-decisions.js';
import * as labels from './0015-labels.js';

interface Migration {
  name: string;
  module: Knex.Migration;
}

const migrations: readonly Migration[] = [
  { name: '0001-initial', module: initial },
  { name: '0002-events-email-lower', module: eventsEmailLower },
  { name: '0003-events-policy-revision', module: eventsPolicyRevision },
  { name: '0004-velocity-counters', module: velocityCounters },
  { name: '0005-project-origins', module: projectOrigins },
  { name: '0006-events-bigint-id', module: eventsBigintId },
  { name: '0007-project-lists', module: projectLists },
  { name: '0008-project-quota', module: projectQuota },
  { name: '0009-events-recorded-facts', module: eventsRecordedFacts },
  { name: '0010-fingerprint-keys', module: fingerprintKeys },
  { name: '0011-api-key-labels', module: apiKeyLabels },
  { name: '0012-events-address-indexes-partial', module: eventsAddressIndexesPartial },
  { name: '0013-events-fingerprint-token', module: eventsFingerprintToken },
  { name: '0014-events-decisions', module: eventsDecisions },
  { name: '0015-labels', module: labels },
];

export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration.module,
};
