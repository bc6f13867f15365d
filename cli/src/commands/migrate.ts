import { loadConfig, migrateToLatest, openDatabase } from '@service/server';
import { Command } from 'commander';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('Bring the database schema up to date (the server also does this at startup).')
    .action(async () => {
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
