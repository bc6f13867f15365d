import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { WorkerRegistry } from '../jobs/worker-registry.js';
import type { ObjectStorage } from '../storage/storage.js';
import type { Lifecycle } from './lifecycle.js';

/** A probe that takes longer than this counts as failed: an orchestrator's probe gives up soon too. */
const CHECK_TIMEOUT_MS = 2_000;
/** The key looked up to see that storage answers; it never exists. */
const STORAGE_PROBE_KEY = '.health-probe';

const readinessSchema = z.object({
  /** `ok` exactly when `ready`; kept from the first version of this answer. */
  status: z.enum(['ok', 'unavailable']),
  version: z.string(),
  database: z.enum(['ok', 'unreachable']),
  /** The process runs and answers; false never appears (a dead process does not answer). */
  live: z.literal(true),
  /** Should get traffic: the database answers and the process is not shutting down. */
  ready: z.boolean(),
  /** SIGTERM received: finishing what runs, taking no new work. */
  draining: z.boolean(),
  /** Reported, not part of readiness: without storage most routes still answer (with 503 where they need it). */
  storage: z.enum(['ok', 'unreachable']),
  workers: z.object({
    /** Job workers inside this process (`SERVICE_JOBS_WORKERS`; 0 for an API-only replica). */
    in_process: z.number().int(),
    /** Worker pools, in any process, that sent a heartbeat within the last 15 s; null while the database is unreachable. */
    active: z.number().int().nullable(),
    /** Job slots of those pools. */
    slots: z.number().int().nullable(),
    /** The latest heartbeat of any worker pool. */
    last_heartbeat_at: z.string().nullable(),
  }),
});

const livenessSchema = z.object({
  status: z.literal('ok'),
  version: z.string(),
  live: z.literal(true),
  draining: z.boolean(),
});

export interface HealthRoutesDeps {
  config: Pick<Config, 'version' | 'jobs'>;
  database: Pick<Database, 'db'>;
  storage: Pick<ObjectStorage, 'head'>;
  workers: Pick<WorkerRegistry, 'seen'>;
  lifecycle: Lifecycle;
}

async function withinTimeout<T>(check: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/health` and `/health/ready` for load balancers and readiness probes: 200 while this replica
 * should get traffic (database answers, not draining), 503 otherwise, with the detail either way.
 * `/health/live` for liveness probes: 200 whenever the process answers at all, so that a database
 * outage makes replicas unready but never gets them restarted.
 */
export function healthRoutes(context: HealthRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const readiness = async (request: { log: { error(obj: object, msg: string): void } }) => {
      const [database, storage, workers] = await Promise.allSettled([
        withinTimeout(() => sql`select 1`.execute(context.database.db)),
        withinTimeout(() => context.storage.head(STORAGE_PROBE_KEY)),
        withinTimeout(() => context.workers.seen()),
      ]);
      if (database.status === 'rejected') {
        request.log.error({ err: database.reason }, 'health check: database unreachable');
      }
      if (storage.status === 'rejected')
        request.log.error({ err: storage.reason }, 'health check: storage unreachable');
      const draining = context.lifecycle.draining;
      const ready = database.status === 'fulfilled' && !draining;
      const seen = workers.status === 'fulfilled' ? workers.value : null;
      return {
        status: ready ? ('ok' as const) : ('unavailable' as const),
        version: context.config.version,
        database: database.status === 'fulfilled' ? ('ok' as const) : ('unreachable' as const),
        live: true as const,
        ready,
        draining,
        storage: storage.status === 'fulfilled' ? ('ok' as const) : ('unreachable' as const),
        workers: {
          in_process: context.config.jobs.enabled ? context.config.jobs.workers : 0,
          active: seen?.active ?? null,
          slots: seen?.slots ?? null,
          last_heartbeat_at: seen?.last_heartbeat_at ?? null,
        },
      };
    };
    for (const path of ['/health', '/health/ready']) {
      app.get(
        path,
        {
          schema: {
            tags: ['operations'],
            summary: 'Readiness (database reachable, not draining) with storage and worker detail',
            response: { 200: readinessSchema, 503: readinessSchema },
          },
        },
        async (request, reply) => {
          const answer = await readiness(request);
          return answer.ready ? answer : reply.code(503).header('retry-after', '1').send(answer);
        },
      );
    }
    app.get(
      '/health/live',
      {
        schema: {
          tags: ['operations'],
          summary: 'Liveness: the process answers (never checks the database)',
          response: { 200: livenessSchema },
        },
      },
      async () => ({
        status: 'ok' as const,
        version: context.config.version,
        live: true as const,
        draining: context.lifecycle.draining,
      }),
    );
  };
}
