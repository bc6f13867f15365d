import { auditListSchema, auditQuerySchema, problemSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { AuditLog } from './service.js';

export function auditRoutes(context: { audit: Pick<AuditLog, 'list'> }, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/audit-events',
      {
        schema: {
          tags: ['users'],
          summary: 'The security audit log, newest first (admins)',
          security: [{ bearerAuth: [] }],
          querystring: auditQuerySchema,
          response: { 200: auditListSchema, 400: problemSchema, 401: problemSchema, 403: problemSchema },
        },
      },
      async (request) => {
        authorize(await actorOf(request), 'audit.read');
        return context.audit.list(request.query);
      },
    );
  };
}
