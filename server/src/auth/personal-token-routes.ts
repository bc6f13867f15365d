import {
  accessTokenListQuerySchema,
  accessTokenListSchema,
  accessTokenParamsSchema,
  createAccessTokenRequestSchema,
  createdAccessTokenSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { PersonalTokens } from './personal-tokens.js';

/**
 * `/auth/tokens`: one's personal access tokens (docs/auth.md "Personal access tokens"). Managed
 * with a session only: a token cannot make, list or revoke tokens (403).
 */
export function personalTokenRoutes(
  { personalTokens }: { personalTokens: PersonalTokens },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
  const common = { tags: ['auth'], security: [{ bearerAuth: [] }] };
  return async (app) => {
    app.post(
      '/auth/tokens',
      {
        schema: {
          ...common,
          summary: 'Create a personal access token for a pipeline or the CLI',
          description:
            'The answer is the only time the secret (`pat_…`) is shown. Send it as `Authorization: Bearer …`. ' +
            '`read` tokens are refused every write (403); `project_ids` limits the token to those projects ' +
            '(others answer 404). A token never does more than its user.',
          body: createAccessTokenRequestSchema,
          response: { 201: createdAccessTokenSchema, ...errors },
        },
      },
      async (request, reply) => {
        const created = await personalTokens.create(await actorOf(request), request.body, request.ip);
        return reply.code(201).send(created);
      },
    );

    app.get(
      '/auth/tokens',
      {
        schema: {
          ...common,
          summary: 'Your personal access tokens, newest first, never their secrets',
          querystring: accessTokenListQuerySchema,
          response: { 200: accessTokenListSchema, ...errors },
        },
      },
      async (request) => personalTokens.list(await actorOf(request), request.query),
    );

    app.delete(
      '/auth/tokens/:token_id',
      {
        schema: {
          ...common,
          summary: 'Revoke one of your personal access tokens at once',
          params: accessTokenParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await personalTokens.revoke(await actorOf(request), request.params.token_id, request.ip);
        return reply.code(204).send(null);
      },
    );
  };
}
