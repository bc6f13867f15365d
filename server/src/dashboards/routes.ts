import {
  createDashboardRequestSchema,
  dashboardListQuerySchema,
  dashboardListSchema,
  dashboardPermissionsRequestSchema,
  dashboardSchema,
  dashboardVersionsSchema,
  duplicateDashboardRequestSchema,
  idParamsSchema,
  problemSchema,
  updateDashboardRequestSchema,
} from '@service/common';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { DashboardHistory } from './history.js';
import { dashboardHistoryRoutes } from './history-routes.js';
import { parseIfMatch } from './revision.js';
import type { DashboardsService, Versioned } from './service.js';
import { dashboardFileRoutes } from './yaml-file-routes.js';
import type { DashboardFiles } from './yaml-files.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['dashboards'], security: [{ bearerAuth: [] }] };

export function dashboardsRoutes(
  {
    dashboards,
    dashboardFiles,
    dashboardHistory,
  }: { dashboards: DashboardsService; dashboardFiles: DashboardFiles; dashboardHistory: DashboardHistory },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    // In their own scope: they take YAML bodies, which the other routes do not.
    await app.register(dashboardFileRoutes(dashboardFiles, actorOf));
    await app.register(dashboardHistoryRoutes(dashboardHistory, actorOf));
    app.get(
      '/dashboards',
      {
        schema: {
          ...common,
          summary: "Dashboards you can read: yours, shared with you, your projects', and public ones",
          querystring: dashboardListQuerySchema,
          response: { 200: dashboardListSchema, ...errors },
        },
      },
      async (request) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.list');
        return dashboards.list(actor, request.query);
      },
    );

    app.post(
      '/dashboards',
      {
        schema: {
          ...common,
          summary: 'Create a dashboard in a project (its editors; you become the dashboard owner)',
          body: createDashboardRequestSchema,
          response: { 201: dashboardSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        return sendVersioned(reply.code(201), await dashboards.createVersioned(actor, request.body));
      },
    );

    app.get(
      '/dashboards/:id',
      {
        schema: {
          ...common,
          summary: 'One dashboard, with its ETag',
          params: idParamsSchema,
          response: { 200: dashboardSchema.describe('ETag header: the revision of its content'), ...errors },
        },
      },
      async (request, reply) => sendVersioned(reply, await dashboards.read(await actorOf(request), request.params.id)),
    );

    app.put(
      '/dashboards/:id',
      {
        schema: {
          ...common,
          summary: 'Replace title, description, components and layout (editors)',
          description:
            'With `If-Match: <ETag>` the save happens only if nobody saved since that ETag (412 `precondition_failed` otherwise); without it, the last save wins. The answer carries the new ETag.',
          params: idParamsSchema,
          headers: z.object({ 'if-match': z.string().optional() }),
          body: updateDashboardRequestSchema,
          response: { 200: dashboardSchema, 412: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        const ifMatch = parseIfMatch(request.headers['if-match']);
        return sendVersioned(reply, await dashboards.update(actor, request.params.id, request.body, ifMatch));
      },
    );

    app.post(
      '/dashboards/:id/duplicate',
      {
        schema: {
          ...common,
          summary: 'Copy a dashboard you can read into a private one you own, in the same project',
          description:
            'Components and layout are copied. What the copy may show later depends on whether you read the project (docs/dashboards.md, "Duplicating").',
          params: idParamsSchema,
          body: duplicateDashboardRequestSchema.nullish(),
          response: { 201: dashboardSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        const copy = await dashboards.duplicate(actor, request.params.id, request.body ?? {});
        return sendVersioned(reply.code(201), copy);
      },
    );

    app.put(
      '/dashboards/:id/permissions',
      {
        schema: {
          ...common,
          summary: 'Set owners, editors, viewers (user ids or emails) and the public switch (owners)',
          description:
            "Sharing beyond the project's readers, making the dashboard public, or sharing a copy made by " +
            'someone who cannot edit the project needs the right to share the project (403 otherwise). ' +
            'With `If-Match: <ETag>` only if nobody saved or shared since (412 `precondition_failed`); the ' +
            'answer carries the new ETag.',
          params: idParamsSchema,
          headers: z.object({ 'if-match': z.string().optional() }),
          body: dashboardPermissionsRequestSchema,
          response: { 200: dashboardSchema, 412: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        const ifMatch = parseIfMatch(request.headers['if-match']);
        return sendVersioned(reply, await dashboards.setPermissions(actor, request.params.id, request.body, ifMatch));
      },
    );

    app.delete(
      '/dashboards/:id',
      {
        schema: {
          ...common,
          summary: 'Delete a dashboard (owners)',
          description: 'With `If-Match: <ETag>` only if nobody saved or shared since (412 `precondition_failed`).',
          params: idParamsSchema,
          headers: z.object({ 'if-match': z.string().optional() }),
          response: { 204: z.null(), 412: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        await dashboards.delete(actor, request.params.id, parseIfMatch(request.headers['if-match']));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/dashboards/:id/versions',
      {
        schema: {
          ...common,
          summary: 'The commits of every collection the dashboard reads, newest first (readers of the dashboard)',
          description:
            'At most 100 per collection. Pick one per collection (or a time) for `as_of` of `POST /dashboards/{id}/data`.',
          params: idParamsSchema,
          response: { 200: dashboardVersionsSchema, ...errors },
        },
      },
      async (request) => dashboards.versions(await actorOf(request), request.params.id),
    );
  };
}

function sendVersioned(reply: FastifyReply, { dashboard, etag }: Versioned) {
  return reply.header('etag', etag).send(dashboard);
}
