import { Migrator } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
}

/** Brings the schema to the newest version; safe to run from several processes at once. */
export async function migrateToLatest(database: Database): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db: database.db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`.replace('  ', ' '));
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
