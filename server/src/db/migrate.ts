import { type Kysely, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './tables.js';

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Numbers are reserved ahead for work in progress, so a lower one (0011) can land after a higher
 * one (0013) has run on a database; it then runs too instead of being refused. Migrations never
 * depend on a higher-numbered one.
 */
function newMigrator(db: Kysely<Tables>): Migrator {
  return new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true });
}

async function migrate(db: Kysely<Tables>): Promise<MigrationOutcome> {
  const migrator = newMigrator(db);
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

/**
 * With auto-migration off (SERVICE_DATABASE_AUTO_MIGRATE=false), a process refuses a schema older
 * than its code with one line saying what to run. A newer schema is accepted: during a rolling
 * upgrade `service migrate` runs first and the old replicas keep serving until replaced.
 */
export async function assertSchemaCurrent(database: Database): Promise<void> {
  const missing = (await newMigrator(database.db).getMigrations()).filter((info) => info.executedAt === undefined);
  if (missing.length === 0) return;
  const names = missing.map((info) => info.name).join(', ');
  throw new Error(
    `the database schema is behind this version (missing migrations: ${names}); run \`service migrate\` first (SERVICE_DATABASE_AUTO_MIGRATE is false)`,
  );
}
