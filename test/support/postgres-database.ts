import { randomBytes } from 'node:crypto';
import pg from 'pg';
import './postgres-context.js';

export interface TestPostgresDatabase {
  /** Connection URL of the new database, with the admin URL's credentials. */
  readonly url: string;
  /** Disconnects remaining sessions and drops the database. Idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh, uniquely named database on the server behind `adminUrl`
 * (a `postgres://` URL whose role may create databases; PostgreSQL >= 13).
 */
export async function createTestPostgresDatabase(adminUrl: string): Promise<TestPostgresDatabase> {
  const name = `t_${randomBytes(8).toString('hex')}`;
  const quoted = pg.escapeIdentifier(name);
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoted}`));

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      dropped ??= withClient(adminUrl, async (client) => {
        await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        // FORCE also covers sessions that connected after the terminate above.
        await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
      });
      return dropped;
    },
  };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
