import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  version: z.string(),
  database: z.enum(['ok', 'unreachable']),
});

export interface HealthRoutesDeps {
  config: Pick<Config, 'version'>;
  database: Pick<Database, 'db'>;
}

/** `/health` for load balancers and orchestrators: 200 while the database answers, 503 otherwise. */
export function healthRoutes(context: HealthRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['operations'],
          summary: 'Liveness and database reachability',
          response: { 200: healthSchema, 503: healthSchema },
        },
      },
      async (request, reply) => {
        try {
          await sql`select 1`.execute(context.database.db);
          return { status: 'ok' as const, version: context.config.version, database: 'ok' as const };
        } catch (error) {
          request.log.error({ err: error }, 'health check: database unreachable');
          return reply
            .code(503)
            .send({ status: 'unavailable', version: context.config.version, database: 'unreachable' });
        }
      },
    );
  };
}
