import type { Database } from '../../src/db/database.js';
import type { Tables } from '../../src/db/tables.js';

/**
 * The tables that hold what users make and own. Left out: sessions, tokens, keys, rate-limit
 * counters and the audit log, which a refused request may rightly touch.
 */
const CONTENT_TABLES: readonly (keyof Tables)[] = [
  'users',
  'projects',
  'project_members',
  'workflows',
  'run_configurations',
  'runs',
  'files',
  'data_collections',
  'joins',
  'delta_commits',
  'delta_sources',
  'jobs',
  'ingestion_runs',
  'dashboards',
  'dashboard_members',
  'embed_tokens',
  'alerts',
];

/** Every content row, in an order that does not depend on the database, to compare before and after. */
export async function contentState(database: Database): Promise<Record<string, string[]>> {
  const state: Record<string, string[]> = {};
  for (const table of CONTENT_TABLES) {
    const rows = await database.db.selectFrom(table).selectAll().execute();
    state[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return state;
}
