import {
  adminUserSchema,
  createUserRequestSchema,
  listQuerySchema,
  problemSchema,
  updateUserRequestSchema,
  userIdParamsSchema,
  userListSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';

/** Account administration; admins only. */
export function usersRoutes(context: AppContext, actorOf: Authenticator): FastifyPluginAsyncZod {
  const { users } = context;
  const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema };
  const common = { tags: ['users'], security: [{ bearerAuth: [] }] };

  return async (app) => {
    app.addHook('preHandler', async (request) => {
      authorize(await actorOf(request), 'users.administer');
    });

    app.get(
      '/users',
      {
        schema: {
          ...common,
          summary: 'List accounts, newest first',
          querystring: listQuerySchema,
          response: { 200: userListSchema, ...errors },
        },
      },
      async (request) => users.list(request.query),
    );

    app.post(
      '/users',
      {
        schema: {
          ...common,
          summary: 'Create an account',
          body: createUserRequestSchema,
          response: { 201: adminUserSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => reply.code(201).send(await users.create(request.body)),
    );

    app.get(
      '/users/:id',
      {
        schema: {
          ...common,
          summary: 'One account',
          params: userIdParamsSchema,
          response: { 200: adminUserSchema, 404: problemSchema, ...errors },
        },
      },
      async (request) => users.get(request.params.id),
    );

    app.patch(
      '/users/:id',
      {
        schema: {
          ...common,
          summary: 'Change an account’s role or disable it',
          description:
            'Disabling ends the account’s sessions at once. The last active admin cannot be demoted or disabled.',
          params: userIdParamsSchema,
          body: updateUserRequestSchema,
          response: { 200: adminUserSchema, 404: problemSchema, 409: problemSchema, ...errors },
        },
      },
      async (request) => users.update(request.params.id, request.body),
    );

    app.delete(
      '/users/:id',
      {
        schema: {
          ...common,
          summary: 'Delete an account and its sessions',
          params: userIdParamsSchema,
          response: { 204: z.null(), 404: problemSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        await users.delete(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
