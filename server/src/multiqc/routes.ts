import { idParamsSchema, multiqcSummaryQuerySchema, multiqcSummarySchema, problemSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Authenticator } from '../http/authentication.js';
import type { MultiqcService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };

/** `GET /datacollections/{id}/multiqc`: what a MultiQC collection's reports hold (docs/data.md). */
export function multiqcRoutes({ multiqc }: { multiqc: MultiqcService }, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/datacollections/:id/multiqc',
      {
        schema: {
          tags: ['data collections'],
          security: [{ bearerAuth: [] }],
          summary: "A MultiQC collection's reports: versions, modules, samples and plots",
          description:
            'For readers of the project. `version` reads an earlier version of the table. A table collection is a 404.',
          params: idParamsSchema,
          querystring: multiqcSummaryQuerySchema,
          response: { 200: multiqcSummarySchema, ...errors },
        },
      },
      async (request) => multiqc.summary(await actorOf(request), request.params.id, request.query.version),
    );
  };
}
