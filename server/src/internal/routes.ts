import { vacuumAnswerSchema, vacuumRequestSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { purgeExpiredCredentials } from '../auth/expired-credentials.js';
import type { TemporaryUsers } from '../auth/temporary-users.js';
import type { Database } from '../db/database.js';
import { purgeStaleLiveRecords } from '../maintenance/live-retention.js';
import type { StorageVacuum } from '../maintenance/storage-vacuum.js';
import { requireInternalKey } from './key.js';

export interface InternalRoutesDeps {
  database: Pick<Database, 'db'>;
  temporaryUsers: Pick<TemporaryUsers, 'removeExpired'>;
  vacuum: Pick<StorageVacuum, 'run'>;
}

/** `/internal/*`: maintenance that operators (or a scheduler) trigger with the internal key. */
export function internalRoutes(context: InternalRoutesDeps, internalKey: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireInternalKey(internalKey));
    app.post(
      '/internal/cleanup',
      {
        schema: {
          tags: ['operations'],
          summary:
            'Remove expired temporary users and what they own, expired sign-in records and access tokens, and stale live events, now (X-Internal-Key)',
          response: {
            200: z.object({
              removed_temporary_users: z.number().int(),
              purged: z.object({
                oauth_states: z.number().int(),
                login_tickets: z.number().int(),
                sessions: z.number().int(),
                refresh_tokens: z.number().int(),
                access_tokens: z.number().int(),
              }),
              live: z.object({ live_events: z.number().int(), live_stream_leases: z.number().int() }),
            }),
          },
        },
      },
      async () => ({
        removed_temporary_users: await context.temporaryUsers.removeExpired(),
        purged: await purgeExpiredCredentials(context.database.db),
        live: await purgeStaleLiveRecords(context.database.db),
      }),
    );
    app.post(
      '/internal/vacuum',
      {
        schema: {
          tags: ['operations'],
          summary:
            'Vacuum every Delta table and remove storage whose owner was deleted, older than the retention (X-Internal-Key)',
          // Without a body, Fastify hands the schema null.
          body: vacuumRequestSchema.nullish(),
          response: { 200: vacuumAnswerSchema },
        },
      },
      async (request) => context.vacuum.run({ dryRun: request.body?.dry_run === true }),
    );
  };
}
