import { loadConfig } from '@service/server/basics';
import { Command } from 'commander';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description(
      'Bring the database schema up to date (serve and worker also do at startup unless SERVICE_DATABASE_AUTO_MIGRATE=false); safe to run from several processes at once.',
    )
    .action(async () => {
      const { migrateToLatest, openDatabase } = await import('@service/server');
      const config = loadConfig();
      const database = openDatabase(config.database);
      try {
        const { applied } = await migrateToLatest(database);
        process.stdout.write(
          applied.length === 0 ? 'Database schema is up to date.\n' : `Applied migrations: ${applied.join(', ')}\n`,
        );
      } finally {
        await database.close();
      }
    });
}
