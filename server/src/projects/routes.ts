import {
  createProjectRequestSchema,
  idParamsSchema,
  permissionsRequestSchema,
  problemSchema,
  projectDeletionSummarySchema,
  projectListQuerySchema,
  projectListSchema,
  projectSchema,
  updateProjectRequestSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { ProjectsService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['projects'], security: [{ bearerAuth: [] }] };

export function projectsRoutes(
  { projects }: { projects: ProjectsService },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/projects',
      {
        schema: {
          ...common,
          summary: 'Projects you can see: yours, shared with you, and public ones',
          querystring: projectListQuerySchema,
          response: { 200: projectListSchema, ...errors },
        },
      },
      async (request) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.list');
        return projects.list(actor, request.query);
      },
    );

    app.post(
      '/projects',
      {
        schema: {
          ...common,
          summary: 'Create a project (you become its owner)',
          body: createProjectRequestSchema,
          response: { 201: projectSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'project.create');
        return reply.code(201).send(await projects.createAndPresent(actor, request.body));
      },
    );

    app.get(
      '/projects/:id',
      {
        schema: {
          ...common,
          summary: 'One project',
          params: idParamsSchema,
          response: { 200: projectSchema, ...errors },
        },
      },
      async (request) => projects.get(await actorOf(request), request.params.id),
    );

    app.patch(
      '/projects/:id',
      {
        schema: {
          ...common,
          summary: 'Rename or describe a project (editors)',
          params: idParamsSchema,
          body: updateProjectRequestSchema,
          response: { 200: projectSchema, 409: problemSchema, ...errors },
        },
      },
      async (request) => projects.update(await actorOf(request), request.params.id, request.body),
    );

    app.put(
      '/projects/:id/permissions',
      {
        schema: {
          ...common,
          summary: 'Set owners, editors, viewers (user ids or emails) and the public switch (owners)',
          params: idParamsSchema,
          body: permissionsRequestSchema,
          response: { 200: projectSchema, ...errors },
        },
      },
      async (request) => projects.setPermissions(await actorOf(request), request.params.id, request.body),
    );

    app.get(
      '/projects/:id/deletion-summary',
      {
        schema: {
          ...common,
          summary: 'What deleting the project would take with it: workflows, collections, files, dashboards (owners)',
          params: idParamsSchema,
          response: { 200: projectDeletionSummarySchema, ...errors },
        },
      },
      async (request) => projects.deletionSummary(await actorOf(request), request.params.id),
    );

    app.delete(
      '/projects/:id',
      {
        schema: {
          ...common,
          summary: 'Delete a project and everything in it (owners)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await projects.delete(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
