import { type Kysely, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './tables.js';

export interface MigrationOutcome {
  applied: string[];
}

async function migrate(db: Kysely<Tables>): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`.replace('  ', ' '));
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/**
 * Brings the schema to the newest version; safe to run from several processes at once.
 * PostgreSQL: Kysely's migrator holds an advisory lock. SQLite: its migrator takes no lock, so the
 * whole run happens inside one `BEGIN IMMEDIATE` transaction, which other processes wait for
 * (busy timeout) and which rolls back entirely if a migration fails.
 */
export async function migrateToLatest(database: Database): Promise<MigrationOutcome> {
  if (database.dialect === 'postgres') return migrate(database.db);
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const outcome = await migrate(connection);
      await sql`commit`.execute(connection);
      return outcome;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}
