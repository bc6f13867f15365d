import { openDatabase } from '@service/server';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { killAllServices, spawnService } from '../../../test/support/processes.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../../../test/support/test-server.js';

/**
 * `service migrate` is how the schema moves when several processes share a database, and it is
 * safe when two run at once (a Helm hook retried, two operators); `serve` and `worker` with
 * auto-migration off refuse an older schema with one line.
 */

afterAll(killAllServices);

function envOf(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_DATA_DIR: database.dataDir,
    SERVICE_DATABASE_URL: database.url,
    SERVICE_PORT: '0',
    SERVICE_LOG_LEVEL: 'warn',
    ...extra,
  };
}

function open(database: TestDatabase) {
  return openDatabase(
    database.dialect === 'sqlite'
      ? { kind: 'sqlite', path: database.url.slice('sqlite:'.length) }
      : { kind: 'postgres', url: database.url },
  );
}

describeEachDialect('migrations in a multi-process deployment', (dialect) => {
  it('lets three `service migrate` run at once: each migration is applied exactly once', async () => {
    const database = await createTestDatabase(dialect);
    const metadata = open(database);
    try {
      const runs = [1, 2, 3].map((n) => spawnService(`migrate-${n}`, ['migrate'], envOf(database)));
      const codes = await Promise.all(runs.map((run) => run.exited));
      expect(codes, runs.map((run) => run.stderr()).join('\n')).toEqual([0, 0, 0]);
      const applied = runs.flatMap((run) => {
        const match = /Applied migrations: (.*)/.exec(run.stdout());
        return match?.[1]?.split(', ') ?? [];
      });
      const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        metadata.db,
      );
      const names = recorded.rows.map((row) => row.name);
      // Every migration ran in exactly one of the processes; the others found nothing left to do.
      expect([...applied].sort()).toEqual(names);
      expect(new Set(names).size).toBe(names.length);
      expect(runs.filter((run) => run.stdout().includes('Database schema is up to date.')).length).toBe(
        runs.length - runs.filter((run) => run.stdout().includes('Applied migrations')).length,
      );
      const tables = (await metadata.db.introspection.getTables()).map((table) => table.name);
      expect(tables).toEqual(expect.arrayContaining(['users', 'jobs', 'dashboards', 'worker_heartbeats']));
    } finally {
      await metadata.close();
      await database.drop();
    }
  }, 60_000);

  it('has serve and worker refuse an older schema with one line when auto-migration is off', async () => {
    const database = await createTestDatabase(dialect);
    const metadata = open(database);
    try {
      const migrate = spawnService('migrate', ['migrate'], envOf(database));
      expect(await migrate.exited).toBe(0);
      // As if this version's newest migration had not run yet.
      await sql`drop table worker_heartbeats`.execute(metadata.db);
      await sql`delete from kysely_migration where name = '0013_worker_heartbeats'`.execute(metadata.db);

      for (const command of ['serve', 'worker']) {
        const refused = spawnService(command, [command], envOf(database, { SERVICE_DATABASE_AUTO_MIGRATE: 'false' }));
        expect(await refused.exited).toBe(1);
        const lines = refused.stderr().trim().split('\n');
        expect(lines).toEqual([
          'service: the database schema is behind this version (missing migrations: 0013_worker_heartbeats); run `service migrate` first (SERVICE_DATABASE_AUTO_MIGRATE is false)',
        ]);
      }
      // Once migrated, the same settings start.
      const again = spawnService('migrate', ['migrate'], envOf(database));
      expect(await again.exited).toBe(0);
      expect(again.stdout()).toContain('Applied migrations: 0013_worker_heartbeats');
      const serve = spawnService('serve', ['serve'], envOf(database, { SERVICE_DATABASE_AUTO_MIGRATE: 'false' }));
      await serve.waitForStderr(/listening on/);
      serve.child.kill('SIGTERM');
      expect(await serve.exited, serve.stderr() + serve.stdout() + String(serve.child.signalCode)).toBe(0);
    } finally {
      await metadata.close();
      await database.drop();
    }
  }, 60_000);
});
