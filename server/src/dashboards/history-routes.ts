import {
  dashboardAtRevisionSchema,
  dashboardRevisionListQuerySchema,
  dashboardRevisionListSchema,
  dashboardRevisionParamsSchema,
  dashboardSchema,
  idParamsSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Authenticator } from '../http/authentication.js';
import type { DashboardHistory } from './history.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['dashboards'], security: [{ bearerAuth: [] }] };

/** `/dashboards/{id}/revisions`: a dashboard's history, for its editors (docs/dashboards.md "History"). */
export function dashboardHistoryRoutes(history: DashboardHistory, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/dashboards/:id/revisions',
      {
        schema: {
          ...common,
          summary: "The dashboard's revisions, newest first, with who saved each and what changed (editors)",
          params: idParamsSchema,
          querystring: dashboardRevisionListQuerySchema,
          response: { 200: dashboardRevisionListSchema, ...errors },
        },
      },
      async (request) => history.list(await actorOf(request), request.params.id, request.query),
    );

    app.get(
      '/dashboards/:id/revisions/:revision',
      {
        schema: {
          ...common,
          summary: 'The dashboard with its content as saved at that revision (editors)',
          params: dashboardRevisionParamsSchema,
          response: { 200: dashboardAtRevisionSchema, ...errors },
        },
      },
      async (request) => history.get(await actorOf(request), request.params.id, request.params.revision),
    );

    app.post(
      '/dashboards/:id/revisions/:revision/restore',
      {
        schema: {
          ...common,
          summary: "Save that revision's content as the dashboard's newest revision (editors)",
          description:
            'History is never rewritten: the restore is a new save, checked like any (its collections must still exist). The answer carries the new ETag.',
          params: dashboardRevisionParamsSchema,
          response: { 200: dashboardSchema, ...errors },
        },
      },
      async (request, reply) => {
        const { id, revision } = request.params;
        const { dashboard, etag } = await history.restore(await actorOf(request), id, revision);
        return reply.header('etag', etag).send(dashboard);
      },
    );
  };
}
