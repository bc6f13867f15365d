import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import { passwordVerifications } from '../users/passwords.js';
import { installDatabaseMetrics } from './database-metrics.js';

/** Counters kept by parts of the process, read when metrics are scraped. */
export interface MetricSources {
  dashboardAnswers: { stats(): { hits: number; misses: number } };
  copies: {
    readonly counts: { built: number; failed: number; evicted: number; reads: number; clustered: number };
    readonly size: number;
  };
  database: Pick<Database, 'db'>;
}

/** Prometheus metrics: this process's runtime, HTTP traffic by route and cache use; jobs and Delta commits from the database. */
export function installMetrics(app: FastifyInstance, sources: MetricSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  installHttpMetrics(app, registry);
  installProcessMetrics(registry, sources);
  installDatabaseMetrics(registry, sources.database);
  return registry;
}

/** Requests answered and their durations, by method, route and status. */
function installHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Each route gets its own hook holding its labelled children: prom-client hashes a labels
  // object on every call, and Fastify builds `request.routeOptions` on every access, both of
  // which cost more than a small request.
  app.addHook('onRoute', (route) => {
    const path = route.url;
    const children = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();
    const hook: onResponseHookHandler = (request, reply, done) => {
      const key = `${request.method} ${reply.statusCode}`;
      let child = children.get(key);
      if (child === undefined) {
        const status = String(reply.statusCode);
        child = {
          count: requests.labels(request.method, path, status),
          time: duration.labels(request.method, path, status),
        };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = route.onResponse === undefined ? [hook] : [...[route.onResponse].flat(), hook];
  });
}

/** Password verifications, the answer cache and the native copies of this process, read when scraped. */
function installProcessMetrics(registry: Registry, sources: MetricSources): void {
  new Counter({
    name: 'password_verifications_total',
    help: 'argon2 password verifications, against a stored hash or the decoy that unknown emails cost',
    labelNames: ['against'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const counts = passwordVerifications();
      this.labels('stored').inc(counts.stored);
      this.labels('decoy').inc(counts.decoy);
    },
  });
  new Counter({
    name: 'dashboard_answer_cache_total',
    help: "Dashboard components' answers asked of the answer cache, by result (hit: served as cached or shared with a running computation)",
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const stats = sources.dashboardAnswers.stats();
      this.labels('hit').inc(stats.hits);
      this.labels('miss').inc(stats.misses);
    },
  });
  new Counter({
    name: 'duckdb_native_copies_total',
    help: 'DuckDB-native copies of table versions, by event: built, failed (read from Parquet instead), evicted, read, clustered (built clustered by range-filtered columns)',
    labelNames: ['event'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const counts = sources.copies.counts;
      for (const event of ['built', 'failed', 'evicted', 'reads', 'clustered'] as const)
        this.labels(event).inc(counts[event]);
    },
  });
  new Gauge({
    name: 'duckdb_native_copies',
    help: 'DuckDB-native copies of table versions this process holds',
    registers: [registry],
    collect() {
      this.set(sources.copies.size);
    },
  });
}
