import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../../test/support/postgres-database.js';
import { down, up } from '../../src/db/migrations/0003_delta_commits.js';
import { type CommitClaims, InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine } from '../../src/engine/delta/engine.js';
import { KyselyCommitClaims } from '../../src/engine/delta/kysely-commit-claims.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { DuckDB } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';

/** The behaviour every CommitClaims implementation must have. */
function claimContract(name: string, open: () => Promise<{ claims: CommitClaims; close(): Promise<void> }>) {
  describe(name, () => {
    let claims: CommitClaims;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ claims, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('gives each version of a table to exactly one writer', async () => {
      const table = randomUUID();
      const outcomes = await Promise.all([1, 2, 3, 4].map(() => claims.claim(table, 0)));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await claims.claim(table, 1)).toBe(true);
      expect(await claims.claim(table, 1)).toBe(false);
      // Other tables are independent.
      expect(await claims.claim(randomUUID(), 0)).toBe(true);
    });

    it('takes over only stale claims, once', async () => {
      const table = randomUUID();
      expect(await claims.claim(table, 3)).toBe(true);
      const past = new Date(Date.now() - 60_000);
      expect(await claims.reclaimStale!(table, 3, past)).toBe(false);
      // A minute on, claims older than 30 s are stale: the old one is, a fresh takeover is not.
      await withClockAhead(60_000, async () => {
        const staleBefore = new Date(Date.now() - 30_000);
        const takeovers = await Promise.all([1, 2, 3].map(() => claims.reclaimStale!(table, 3, staleBefore)));
        expect(takeovers.filter(Boolean)).toHaveLength(1);
        expect(await claims.reclaimStale!(table, 3, staleBefore)).toBe(false);
        const future = new Date(Date.now() + 60_000);
        expect(await claims.reclaimStale!(table, 4, future)).toBe(false);
      });
    });

    it('forgets a table', async () => {
      const table = randomUUID();
      expect(await claims.claim(table, 0)).toBe(true);
      await claims.forget(table);
      expect(await claims.claim(table, 0)).toBe(true);
    });
  });
}

claimContract('InMemoryCommitClaims', async () => ({ claims: new InMemoryCommitClaims(), close: async () => {} }));

claimContract('KyselyCommitClaims on SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'claims-'));
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(join(dir, 'claims.sqlite')) }) });
  await up(db);
  return {
    claims: KyselyCommitClaims.over(db),
    async close() {
      await down(db);
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe.skipIf(inject('postgresAdminUrl') === '')('on PostgreSQL', () => {
  claimContract('KyselyCommitClaims on PostgreSQL', async () => {
    const database: TestPostgresDatabase = await createTestPostgresDatabase(inject('postgresAdminUrl'));
    const pool = new pg.Pool({ connectionString: database.url, max: 5 });
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    await up(db);
    return {
      claims: KyselyCommitClaims.over(db),
      async close() {
        await db.destroy();
        await database.drop();
      },
    };
  });
});

describe('writers sharing a SQLite claims table', () => {
  it('commit versions 1..4 without losing one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'claims-writers-'));
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new SQLite(join(dir, 'claims.sqlite')) }),
    });
    const duckdb = await DuckDB.open();
    try {
      await up(db);
      const engine = createDeltaEngine({ storage: new LocalStorage(join(dir, 'storage')), duckdb });
      const files = await Promise.all(
        [0, 1, 2, 3, 4].map(async (n) => {
          const path = join(dir, `${n}.parquet`);
          await duckdb.withConnection((connection) =>
            connection.run(`COPY (SELECT ${n}::BIGINT AS n) TO ${quoteString(path)} (FORMAT parquet)`),
          );
          return path;
        }),
      );
      const writer = () => new DeltaTable(engine, KyselyCommitClaims.over(db), 'shared', 'deltatables/shared');
      await writer().commit({ operation: 'CREATE TABLE', add: [{ localPath: files[0]! }] });
      const results = await Promise.all(
        files.slice(1).map((localPath) => writer().commit({ operation: 'WRITE', add: [{ localPath }] })),
      );
      expect(results.map((result) => result.version).sort()).toEqual([1, 2, 3, 4]);
      expect((await writer().snapshot()).files).toHaveLength(5);
      const rows = await (db as Kysely<{ delta_commits: { version: number } }>)
        .selectFrom('delta_commits')
        .select('version')
        .orderBy('version')
        .execute();
      expect(rows.map((row) => row.version)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      duckdb.close();
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
