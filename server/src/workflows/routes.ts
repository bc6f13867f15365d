import {
  createRunConfigurationRequestSchema,
  createWorkflowRequestSchema,
  idParamsSchema,
  listQuerySchema,
  problemSchema,
  runConfigurationListSchema,
  runConfigurationSchema,
  runListSchema,
  runSchema,
  updateWorkflowRequestSchema,
  workflowListSchema,
  workflowSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { WorkflowsService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['workflows'], security: [{ bearerAuth: [] }] };

/** Workflows, their run configurations and runs. */
export function workflowsRoutes(
  { workflows }: { workflows: WorkflowsService },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/projects/:id/workflows',
      {
        schema: {
          ...common,
          summary: 'Workflows of a project',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: workflowListSchema, ...errors },
        },
      },
      async (request) => workflows.list(await actorOf(request), request.params.id, request.query),
    );
    app.post(
      '/projects/:id/workflows',
      {
        schema: {
          ...common,
          summary: 'Add a workflow (editors)',
          params: idParamsSchema,
          body: createWorkflowRequestSchema,
          response: { 201: workflowSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await workflows.create(await actorOf(request), request.params.id, request.body)),
    );
    app.get(
      '/workflows/:id',
      {
        schema: {
          ...common,
          summary: 'One workflow',
          params: idParamsSchema,
          response: { 200: workflowSchema, ...errors },
        },
      },
      async (request) => workflows.get(await actorOf(request), request.params.id),
    );
    app.patch(
      '/workflows/:id',
      {
        schema: {
          ...common,
          summary: 'Change a workflow (editors)',
          params: idParamsSchema,
          body: updateWorkflowRequestSchema,
          response: { 200: workflowSchema, 409: problemSchema, ...errors },
        },
      },
      async (request) => workflows.update(await actorOf(request), request.params.id, request.body),
    );
    app.delete(
      '/workflows/:id',
      {
        schema: {
          ...common,
          summary: 'Delete a workflow with its runs and data (editors)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await workflows.delete(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
    app.get(
      '/workflows/:id/run-configurations',
      {
        schema: {
          ...common,
          summary: 'Run configurations (versioned parameter sets) of a workflow',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: runConfigurationListSchema, ...errors },
        },
      },
      async (request) => workflows.listRunConfigurations(await actorOf(request), request.params.id, request.query),
    );
    app.post(
      '/workflows/:id/run-configurations',
      {
        schema: {
          ...common,
          summary: 'Save a parameter set as the next version of its name (editors)',
          params: idParamsSchema,
          body: createRunConfigurationRequestSchema,
          response: { 201: runConfigurationSchema, ...errors },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await workflows.createRunConfiguration(await actorOf(request), request.params.id, request.body)),
    );
    app.get(
      '/workflows/:id/runs',
      {
        schema: {
          ...common,
          summary: 'Runs of a workflow',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: runListSchema, ...errors },
        },
      },
      async (request) => workflows.listRuns(await actorOf(request), request.params.id, request.query),
    );
    app.get(
      '/runs/:id',
      { schema: { ...common, summary: 'One run', params: idParamsSchema, response: { 200: runSchema, ...errors } } },
      async (request) => workflows.getRun(await actorOf(request), request.params.id),
    );
    app.delete(
      '/runs/:id',
      {
        schema: {
          ...common,
          summary: 'Delete a run and its files (editors)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await workflows.deleteRun(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
