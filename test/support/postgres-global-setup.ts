import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './embedded-postgres-server.js';
import { handleMissingService } from './missing-service.js';
import './postgres-context.js';

const ENV_URL = 'SERVICE_TEST_DATABASE_URL';
/** First release with DROP DATABASE ... WITH (FORCE). */
const MIN_SERVER_VERSION_NUM = 130000;

/**
 * Provides `postgresAdminUrl` to tests: the server named by
 * SERVICE_TEST_DATABASE_URL (which must work), else a throwaway embedded
 * server, else '' so that PostgreSQL suites skip (on CI: the run fails instead).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const envUrl = process.env[ENV_URL];
  if (envUrl) {
    const problem = await checkAdminUrl(envUrl);
    if (problem) {
      const error = new Error(`[postgres] ${ENV_URL}=${redact(envUrl)} is not usable: ${problem}`);
      // The message says it all; a stack into this file would only add noise.
      error.stack = error.message;
      throw error;
    }
    project.provide('postgresAdminUrl', envUrl);
    return undefined;
  }

  try {
    const server = await startEmbeddedPostgres();
    project.provide('postgresAdminUrl', server.url);
    return () => server.stop();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    handleMissingService('postgres', 'PostgreSQL suites', reason);
    project.provide('postgresAdminUrl', '');
    return undefined;
  }
}

/** Returns why `url` cannot serve as the tests' admin connection, if it cannot. */
async function checkAdminUrl(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // Without a listener a dropped connection would crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ version: number; can_create: boolean }>(
      `SELECT current_setting('server_version_num')::int AS version,
              (rolsuper OR rolcreatedb) AS can_create
         FROM pg_roles WHERE rolname = current_user`,
    );
    const row = rows[0];
    if (!row) return 'cannot read the current role';
    if (row.version < MIN_SERVER_VERSION_NUM) return `PostgreSQL >= 13 required, server is ${row.version}`;
    if (!row.can_create) return 'role may not create databases (needs CREATEDB)';
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  } finally {
    await client.end().catch(() => {});
  }
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}
