import { acceptedJobSchema, problemSchema, upsertAnswerSchema, upsertRequestSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.js';
import type { Authenticator } from '../http/authentication.js';
import type { JobQueue } from '../jobs/queue.js';
import type { UpsertService } from './upsert.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };

export interface DeltatablesRoutesDeps {
  config: { jobs: Pick<Config['jobs'], 'asyncUpsert'> };
  upserts: Pick<UpsertService, 'upsert' | 'authorizeLater'>;
  jobs: Pick<JobQueue, 'enqueue'>;
}

export function deltatablesRoutes(context: DeltatablesRoutesDeps, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/deltatables/upsert',
      {
        schema: {
          tags: ['data collections'],
          security: [{ bearerAuth: [] }],
          summary: 'Build or update a data collection’s table from its registered files (editors)',
          description:
            'New files add their rows, changed files replace theirs, with `keys` rows are merged by key, `overwrite` rebuilds the table. Answers when the table is written. `async_mode` is honoured only while `deltatables.async_upsert` is among the capabilities; otherwise the work is done before answering.',
          body: upsertRequestSchema,
          response: { 200: upsertAnswerSchema, 202: acceptedJobSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        if (request.body.async_mode === true && context.config.jobs.asyncUpsert) {
          const workflow = await context.upserts.authorizeLater(actor, request.body);
          const { async_mode: _async, ...payload } = request.body;
          const job = await context.jobs.enqueue('deltatable.upsert', payload, {
            userId: actor.kind === 'user' ? actor.userId : null,
            projectId: workflow.project_id,
          });
          return reply.code(202).send({ job_id: job.job_id });
        }
        return context.upserts.upsert(actor, request.body);
      },
    );
  };
}
