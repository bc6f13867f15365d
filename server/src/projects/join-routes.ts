import {
  createJoinRequestSchema,
  idParamsSchema,
  joinListSchema,
  joinSchema,
  listQuerySchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { JoinsService } from './joins.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['projects'], security: [{ bearerAuth: [] }] };

export function joinRoutes({ joins }: { joins: JoinsService }, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/projects/:id/joins',
      {
        schema: {
          ...common,
          summary: 'Joins between the project’s data collections',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: joinListSchema, ...errors },
        },
      },
      async (request) => joins.list(await actorOf(request), request.params.id, request.query),
    );
    app.post(
      '/projects/:id/joins',
      {
        schema: {
          ...common,
          summary: 'Join two data collections of the project (editors)',
          params: idParamsSchema,
          body: createJoinRequestSchema,
          response: { 201: joinSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await joins.create(await actorOf(request), request.params.id, request.body)),
    );
    app.delete(
      '/joins/:id',
      {
        schema: {
          ...common,
          summary: 'Remove a join (editors)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await joins.delete(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
