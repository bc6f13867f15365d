import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import { KyselyCommitClaims } from '../engine/delta/kysely-commit-claims.js';
import { queueFigures } from '../jobs/queue.js';

interface DatabaseFigures {
  queued: number;
  running: number;
  oldestPendingSeconds: number;
  deltaCommits: number;
  lastCommitSeconds: number;
}

async function readFigures(db: Database['db']): Promise<DatabaseFigures> {
  const [jobs, commits] = await Promise.all([queueFigures(db), KyselyCommitClaims.over(db).figures()]);
  const oldestAt = jobs.oldestPendingAt;
  return {
    queued: jobs.queued,
    running: jobs.running,
    oldestPendingSeconds: oldestAt === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldestAt)) / 1000),
    deltaCommits: commits.count,
    lastCommitSeconds: commits.newestClaimedAt === null ? 0 : Date.parse(commits.newestClaimedAt) / 1000,
  };
}

/**
 * Gauges read from the metadata database when /metrics is scraped, so that every API replica
 * reports the same figures for work that any process (a replica or a `service worker`) did.
 * Workers have no HTTP server: what they do is seen here. While the database does not answer, the
 * scrape still succeeds (the process's own metrics matter most then): `database_metrics_up` is 0
 * and these gauges keep the last figures read.
 */
export function installDatabaseMetrics(registry: Registry, database: Pick<Database, 'db'>): void {
  // A scrape collects every metric at once: the gauges of one scrape share one round of reads.
  let inFlight: Promise<DatabaseFigures | null> | null = null;
  const figures = () => {
    inFlight ??= readFigures(database.db)
      .catch(() => null)
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
  const gauge = (name: string, help: string, of: (read: DatabaseFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const read = await figures();
        if (read !== null) this.set(of(read));
      },
    });
  new Gauge({
    name: 'database_metrics_up',
    help: '1 when the database answered the reads behind jobs_* and delta_* at this scrape; 0: they show the last figures read',
    registers: [registry],
    async collect() {
      this.set((await figures()) === null ? 0 : 1);
    },
  });
  gauge('jobs_queued', 'Jobs waiting for a worker (status pending), across all processes', (read) => read.queued);
  gauge('jobs_running', 'Jobs a worker is running (status running), across all processes', (read) => read.running);
  gauge(
    'jobs_oldest_pending_age_seconds',
    'How long the oldest waiting job has waited; 0 when none waits. Growing: too few workers',
    (read) => read.oldestPendingSeconds,
  );
  // Not a counter: deleting a data collection deletes its commit rows, and a counter must not fall.
  gauge(
    'delta_commits',
    'Delta table versions committed by any process, over the data collections that exist',
    (read) => read.deltaCommits,
  );
  gauge(
    'delta_last_commit_timestamp_seconds',
    'When the newest Delta commit was claimed (Unix time); 0 when there is none',
    (read) => read.lastCommitSeconds,
  );
}
