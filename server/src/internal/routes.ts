import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { requireInternalKey } from './key.js';

/** `/internal/*`: maintenance that operators (or a scheduler) trigger with the internal key. */
export function internalRoutes(context: AppContext, internalKey: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireInternalKey(internalKey));
    app.post(
      '/internal/cleanup',
      {
        schema: {
          tags: ['operations'],
          summary: 'Remove expired temporary users and what they own, now (X-Internal-Key)',
          response: { 200: z.object({ removed_temporary_users: z.number().int() }) },
        },
      },
      async () => ({ removed_temporary_users: await context.temporaryUsers.removeExpired() }),
    );
  };
}
