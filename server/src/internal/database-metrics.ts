import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/database.js';

/**
 * Gauges read from the metadata database when /metrics is scraped, so that every API replica
 * reports the same figures for work that any process (a replica or a `service worker`) did.
 * Workers have no HTTP server: what they do is seen here.
 */
export function installDatabaseMetrics(registry: Registry, database: Pick<Database, 'db'>): void {
  const { db } = database;
  const jobsByStatus = async (status: 'pending' | 'running') => {
    const row = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', status)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  };
  new Gauge({
    name: 'jobs_queued',
    help: 'Jobs waiting for a worker (status pending), across all processes',
    registers: [registry],
    async collect() {
      this.set(await jobsByStatus('pending'));
    },
  });
  new Gauge({
    name: 'jobs_running',
    help: 'Jobs a worker is running (status running), across all processes',
    registers: [registry],
    async collect() {
      this.set(await jobsByStatus('running'));
    },
  });
  new Gauge({
    name: 'jobs_oldest_pending_age_seconds',
    help: 'How long the oldest waiting job has waited; 0 when none waits. Growing: too few workers',
    registers: [registry],
    async collect() {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min('created_at').as('oldest'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      const oldest = row?.oldest ?? null;
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
    },
  });
  // Not a counter: deleting a data collection deletes its commit rows, and a counter must not fall.
  new Gauge({
    name: 'delta_commits',
    help: 'Delta table versions committed by any process, over the data collections that exist',
    registers: [registry],
    async collect() {
      const row = await db
        .selectFrom('delta_commits')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow();
      this.set(Number(row.count));
    },
  });
  new Gauge({
    name: 'delta_last_commit_timestamp_seconds',
    help: 'When the newest Delta commit was claimed (Unix time); 0 when there is none',
    registers: [registry],
    async collect() {
      const row = await db
        .selectFrom('delta_commits')
        .select((eb) => eb.fn.max('claimed_at').as('newest'))
        .executeTakeFirst();
      const newest = row?.newest ?? null;
      this.set(newest === null ? 0 : Date.parse(newest) / 1000);
    },
  });
}
