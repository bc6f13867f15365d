import {
  adminUserSchema,
  createUserRequestSchema,
  deleteUserQuerySchema,
  listQuerySchema,
  problemSchema,
  updateUserRequestSchema,
  userDeletionSummarySchema,
  userIdParamsSchema,
  userListSchema,
} from '@service/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { UserActor } from '../policy/actor.js';
import { authorize } from '../policy/policy.js';
import type { AccountDeletion } from './deletion.js';
import type { UsersService } from './service.js';

type App = Parameters<FastifyPluginAsyncZod>[0];
/** The acting admin; anyone else is refused. */
type Admin = (request: FastifyRequest) => Promise<UserActor>;

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema };
const common = { tags: ['users'], security: [{ bearerAuth: [] }] };

/** Account administration; admins only. */
export function usersRoutes(
  { users, accountDeletion }: { users: UsersService; accountDeletion: AccountDeletion },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  const admin: Admin = async (request) => {
    const actor = await actorOf(request);
    authorize(actor, 'users.administer');
    return actor;
  };
  return async (app) => {
    accountRoutes(app, users, admin);
    accountDeletionRoutes(app, accountDeletion, admin);
  };
}

/** Listing, creating, reading and changing accounts. */
function accountRoutes(app: App, users: UsersService, admin: Admin): void {
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
}

/** Deleting an account, and what that would hand over or delete. */
function accountDeletionRoutes(app: App, accountDeletion: AccountDeletion, admin: Admin): void {
  app.get(
    '/users/:id/deletion-summary',
    {
      schema: {
        ...common,
        summary: 'What deleting an account would hand over or delete',
        description:
          'Counts what the account owns alone (no other owner), its working embed tokens and its sessions, for the confirmation before `DELETE /users/{id}`.',
        params: userIdParamsSchema,
        response: { 200: userDeletionSummarySchema, 404: problemSchema, ...errors },
      },
    },
    async (request) => {
      await admin(request);
      return accountDeletion.summary(request.params.id);
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        ...common,
        summary: 'Delete an account; what it owns alone goes to an admin or is deleted',
        description:
          'In one transaction: the projects and dashboards the account owns alone become owned by `transfer_to` (an active admin; default: you), or are deleted with `delete_owned=true`; the embed tokens it made are revoked; its sessions end on every replica before the answer. A refusal changes nothing. You cannot delete yourself (409 `self_deletion`) or the last active admin (409 `last_admin`).',
        params: userIdParamsSchema,
        querystring: deleteUserQuerySchema,
        response: { 204: z.null(), 404: problemSchema, 409: problemSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await admin(request);
      await accountDeletion.delete(
        request.params.id,
        { transferTo: request.query.transfer_to, deleteOwned: request.query.delete_owned },
        { userId: actor.userId, via: 'admin' },
      );
      return reply.code(204).send(null);
    },
  );
}
