import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
/** Kysely methods that start a query on a table (joins only read columns of a query someone owns). */
const QUERY_METHODS = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto'];

/**
 * The one module that queries each table (docs/architecture.md "Table owners"); every other
 * module calls it. An owner may join another table to read its columns, never query it.
 */
const OWNERS: Record<string, string> = {
  access_tokens: 'server/src/tables/access-tokens.ts',
  alert_deliveries: 'server/src/tables/notifications.ts',
  alert_evaluations: 'server/src/tables/alerts.ts',
  alerts: 'server/src/tables/alerts.ts',
  audit_events: 'server/src/audit/service.ts',
  dashboard_members: 'server/src/tables/dashboards.ts',
  dashboard_revisions: 'server/src/tables/dashboard-revisions.ts',
  dashboards: 'server/src/tables/dashboards.ts',
  data_collections: 'server/src/tables/data-collections.ts',
  delta_commits: 'server/src/engine/delta/kysely-commit-claims.ts',
  delta_sources: 'server/src/deltatables/source-records.ts',
  embed_tokens: 'server/src/tables/embed-tokens.ts',
  files: 'server/src/tables/files.ts',
  ingestion_runs: 'server/src/tables/ingestion-runs.ts',
  jobs: 'server/src/jobs/queue.ts',
  live_events: 'server/src/tables/live-events.ts',
  live_stream_leases: 'server/src/tables/live-stream-leases.ts',
  joins: 'server/src/tables/joins.ts',
  login_tickets: 'server/src/auth/login-tickets.ts',
  notifications: 'server/src/tables/notifications.ts',
  oauth_states: 'server/src/tables/oauth-states.ts',
  project_members: 'server/src/tables/projects.ts',
  projects: 'server/src/tables/projects.ts',
  rate_limit_counters: 'server/src/rate-limit/database-store.ts',
  refresh_tokens: 'server/src/tables/sessions.ts',
  run_configurations: 'server/src/tables/workflows.ts',
  runs: 'server/src/tables/runs.ts',
  sessions: 'server/src/tables/sessions.ts',
  signing_keys: 'server/src/auth/signing-keys.ts',
  users: 'server/src/users/repository.ts',
  worker_heartbeats: 'server/src/jobs/worker-registry.ts',
  workflows: 'server/src/tables/workflows.ts',
};

/** `{ table: { file: [method, …] } }`, from the same scan `node scripts/table-queries.mjs` prints. */
function tableQueries(): Record<string, Record<string, string[]>> {
  const output = execFileSync(process.execPath, ['scripts/table-queries.mjs', '--json'], { cwd: repository });
  return JSON.parse(output.toString('utf8')) as Record<string, Record<string, string[]>>;
}

describe('table owners', () => {
  const byTable = tableQueries();

  it('name one owner for every table of the database', () => {
    expect(Object.keys(byTable).length).toBeGreaterThan(20);
    expect(Object.keys(byTable).filter((table) => OWNERS[table] === undefined)).toEqual([]);
  });

  it('are the only modules that query their table (migrations aside)', () => {
    const strangers = Object.entries(byTable).flatMap(([table, files]) =>
      Object.entries(files)
        .filter(([file, methods]) => file !== OWNERS[table] && methods.some((m) => QUERY_METHODS.includes(m)))
        .map(([file]) => `${table} queried in ${file} (owner: ${OWNERS[table]})`),
    );
    expect(strangers).toEqual([]);
  });
});
