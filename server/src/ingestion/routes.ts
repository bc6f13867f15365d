import {
  ingestAnswerSchema,
  ingestionRunListSchema,
  ingestRequestSchema,
  listQuerySchema,
  problemSchema,
  triggerAnswerSchema,
  triggerQuerySchema,
  triggerStatusSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { Authenticator } from '../http/authentication.js';
import type { IngestionService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema, 409: problemSchema };
const common = { tags: ['ingestion'], security: [{ bearerAuth: [] }] };
const projectParams = z.strictObject({ project_id: z.string().min(1).max(64) });

export interface IngestionRoutesDeps {
  config: { ingestion: Pick<Config['ingestion'], 'browserTrigger'>; jobs: Pick<Config['jobs'], 'enabled'> };
  ingestion: IngestionService;
}

export function ingestionRoutes(
  { ingestion, config }: IngestionRoutesDeps,
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    // The browser's "Run ingestion" button exists only while the switch (and jobs) are on.
    if (config.ingestion.browserTrigger) {
      app.post(
        '/projects/ingestion/trigger/:project_id',
        {
          schema: {
            ...common,
            summary: 'Run ingestion as a job (the Run ingestion button); attaches to a running one',
            params: projectParams,
            querystring: triggerQuerySchema,
            response: { 200: triggerAnswerSchema, 202: triggerAnswerSchema, ...errors },
          },
        },
        async (request, reply) => {
          const answer = await ingestion.trigger(await actorOf(request), request.params.project_id, {
            overwrite: request.query.overwrite,
            trigger: 'browser',
          });
          return reply.code(answer.already_running ? 200 : 202).send(answer);
        },
      );
    }

    app.get(
      '/projects/ingestion/trigger-status/:project_id',
      {
        schema: {
          ...common,
          summary: 'Whether Run ingestion is offered, and whether you can use it',
          params: projectParams,
          response: { 200: triggerStatusSchema, ...errors },
        },
      },
      async (request) => ingestion.triggerStatus(await actorOf(request), request.params.project_id),
    );

    app.get(
      '/projects/ingestion-runs/:project_id',
      {
        schema: {
          ...common,
          summary: 'The project’s ingestion runs, newest first (paths and host only for editors)',
          params: projectParams,
          querystring: listQuerySchema,
          response: { 200: ingestionRunListSchema, ...errors },
        },
      },
      async (request) => ingestion.listRuns(await actorOf(request), request.params.project_id, request.query),
    );

    app.post(
      '/projects/:id/ingest',
      {
        schema: {
          ...common,
          summary:
            'Ingest from the API or CLI (editors): a job with async_mode while jobs are on, otherwise done before answering',
          params: z.strictObject({ id: z.string().min(1).max(64) }),
          body: ingestRequestSchema.nullish(),
          response: { 200: ingestAnswerSchema, 202: ingestAnswerSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        const options = {
          overwrite: request.body?.overwrite ?? false,
          trigger: request.body?.source ?? ('api' as const),
        };
        if (config.jobs.enabled && request.body?.async_mode === true) {
          const answer = await ingestion.trigger(actor, request.params.id, options);
          return reply.code(answer.already_running ? 200 : 202).send(answer);
        }
        return ingestion.runNow(actor, request.params.id, options);
      },
    );
  };
}
