import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestPostgresDatabase } from '../test/support/postgres-database.js';

const adminUrl = inject('postgresAdminUrl');

describe.skipIf(!adminUrl)('postgres', () => {
  it('creates, uses and drops databases', async () => {
    console.log('admin url', adminUrl);
    const dbs = await Promise.all(Array.from({ length: 10 }, () => createTestPostgresDatabase(adminUrl)));
    const names = dbs.map((d) => new URL(d.url).pathname.slice(1));
    try {
      const db = dbs[0]!;
      console.log('db url', db.url);
      const client = new pg.Client(db.url);
      client.on('error', (e) => console.log('client error (expected after drop):', e.message));
      await client.connect();
      const r = await client.query(
        "select current_database() as d, version() as v, (select datcollate||'/'||datlocprovider::text from pg_database where datname=current_database()) as c, upper('é') as u, 'a' < 'B' as cmp, current_setting('fsync') as f",
      );
      console.log(r.rows[0]);
      await client.query('create table t(x int)');
      // client stays connected: drop must terminate it
    } finally {
      await Promise.all(dbs.map((d) => d.drop()));
    }
    await dbs[0]!.drop(); // idempotent
    const admin = new pg.Client(adminUrl);
    await admin.connect();
    const left = await admin.query('select count(*)::int as n from pg_database where datname = any($1)', [names]);
    await admin.end();
    expect(left.rows[0].n).toBe(0);
  });
});
