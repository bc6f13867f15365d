import {
  adminUserSchema,
  createUserRequestSchema,
  listQuerySchema,
  problemSchema,
  updateUserRequestSchema,
  userIdParamsSchema,
  userListSchema,
} from '@service/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { UsersService } from './service.js';

/** Account administration; admins only. */
export function usersRoutes({ users }: { users: UsersService }, actorOf: Authenticator): FastifyPluginAsyncZod {
  const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema };
  const common = { tags: ['users'], security: [{ bearerAuth: [] }] };

  return async (app) => {
    const admin = async (request: FastifyRequest) => {
      const actor = await actorOf(request);
      authorize(actor, 'users.administer');
      return actor;
    };

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
      async (request) => {
        await admin(request);
        return users.list(request.query);
      },
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
      async (request, reply) => {
        const actor = await admin(request);
        return reply.code(201).send(await users.create(request.body, actor.userId));
      },
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
      async (request) => {
        await admin(request);
        return users.get(request.params.id);
      },
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
      async (request) => {
        const actor = await admin(request);
        return users.update(request.params.id, request.body, actor.userId);
      },
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
        const actor = await admin(request);
        await users.delete(request.params.id, actor.userId);
        return reply.code(204).send(null);
      },
    );
  };
}
