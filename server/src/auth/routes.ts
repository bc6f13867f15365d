import formbody from '@fastify/formbody';
import {
  jwksSchema,
  loginRequestSchema,
  problemSchema,
  refreshRequestSchema,
  registerRequestSchema,
  sessionAnswerSchema,
  userSchema,
} from '@service/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import { DomainError } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import { presentUser } from '../users/presenters.js';
import { normalizeEmail } from '../users/repository.js';
import type { UsersService } from '../users/service.js';
import type { AccessTokens } from './access-tokens.js';
import type { SessionService } from './session-service.js';

const LOGIN_LIMIT = { max: 10, timeWindow: 60_000 };
const FORM_BODY_LIMIT = 64 * 1024;

/** The OAuth2 password-grant form (`username`, `password`, maybe `grant_type`…) as our JSON body. */
function acceptLoginForm(request: FastifyRequest, _reply: unknown, done: () => void) {
  if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    const form = (request.body ?? {}) as Record<string, unknown>;
    request.body = { email: form.username, password: form.password };
  }
  done();
}

function loginKey(request: FastifyRequest): string {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  return `login:${request.ip}:${typeof email === 'string' ? normalizeEmail(email) : ''}`;
}

export interface AuthRoutesDeps {
  config: {
    auth: Pick<Config['auth'], 'mode' | 'passwordLoginDisabled' | 'registrationDisabled' | 'registrationRateLimit'>;
  };
  sessions: Pick<SessionService, 'login' | 'refresh' | 'revokeSession'>;
  users: Pick<UsersService, 'createAccount' | 'repository'>;
  tokens: Pick<AccessTokens, 'publicJwk'>;
}

export function authRoutes(context: AuthRoutesDeps, actorOf: Authenticator): FastifyPluginAsyncZod {
  const { config, sessions, users } = context;
  const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 429: problemSchema };

  return async (app) => {
    // The only route that takes a form (the OAuth2 password grant's shape): in a scope of its own,
    // so no other route parses one and a cross-site HTML form can post to nothing else.
    await app.register(async (scope) => {
      await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
      const login = scope.withTypeProvider<ZodTypeProvider>();
      login.post(
        '/auth/login',
        {
          // Refused before the body is even parsed: no credential is looked at.
          onRequest: async () => {
            if (config.auth.passwordLoginDisabled) {
              throw new DomainError(
                'password_login_disabled',
                'password sign-in is disabled; use the identity provider',
              );
            }
          },
          preValidation: acceptLoginForm,
          config: { access: 'open', rateLimit: { ...LOGIN_LIMIT, hook: 'preHandler', keyGenerator: loginKey } },
          schema: {
            tags: ['auth'],
            summary: 'Sign in with email and password',
            description:
              'JSON `{email, password}`, or an `application/x-www-form-urlencoded` form with `username` and `password`. ' +
              'Rate-limited to 10 attempts a minute per client address and email.',
            body: loginRequestSchema,
            response: { 200: sessionAnswerSchema, ...errors },
          },
        },
        async (request) => sessions.login(request.body.email, request.body.password, request.ip),
      );
    });

    app.post(
      '/auth/register',
      {
        // On request, before the body is read: every attempt counts, refused ones too, so that
        // nobody mass-creates accounts (or probes which emails exist) from one address.
        config: {
          access: 'open',
          rateLimit: {
            max: config.auth.registrationRateLimit.max,
            timeWindow: config.auth.registrationRateLimit.windowMs,
            keyGenerator: (request: FastifyRequest) => `register:${request.ip}`,
          },
        },
        onRequest: async () => {
          if (config.auth.registrationDisabled || config.auth.mode !== 'auth') {
            throw new DomainError('registration_disabled', 'self-service registration is disabled on this instance');
          }
        },
        schema: {
          tags: ['auth'],
          summary: 'Create an account',
          body: registerRequestSchema,
          response: { 201: userSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const user = await users.createAccount({ ...request.body, role: 'user' }, { via: 'registration' });
        return reply.code(201).send(presentUser(user));
      },
    );

    app.post(
      '/auth/refresh',
      {
        config: { access: 'open' },
        schema: {
          tags: ['auth'],
          summary: 'Exchange a refresh token for a new token pair',
          description: 'The refresh token is single-use. Presenting a spent one ends its whole session.',
          body: refreshRequestSchema,
          response: { 200: sessionAnswerSchema, ...errors },
        },
      },
      async (request) => sessions.refresh(request.body.refresh_token),
    );

    app.post(
      '/auth/logout',
      {
        schema: {
          tags: ['auth'],
          summary: 'End the current session',
          security: [{ bearerAuth: [] }],
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'session.read_own');
        // The single-user-mode admin has no session to end.
        if (actor.sessionId !== null) await sessions.revokeSession(actor.sessionId, 'logout');
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/auth/me',
      {
        // The answer is built from our own row, so its shape is known: plain JSON, the hottest
        // authenticated route skips re-validating its output.
        serializerCompiler: () => (data) => JSON.stringify(data),
        schema: {
          tags: ['auth'],
          summary: 'The signed-in user',
          security: [{ bearerAuth: [] }],
          response: { 200: userSchema, ...errors },
        },
      },
      async (request) => {
        const actor = await actorOf(request);
        authorize(actor, 'session.read_own');
        const row = actorOf.rowOf(request) ?? (await users.repository.findById(actor.userId));
        if (!row) throw new DomainError('token_invalid', 'the session has ended');
        return presentUser(row);
      },
    );

    app.get(
      '/auth/jwks.json',
      {
        config: { access: 'open' },
        schema: {
          tags: ['auth'],
          summary: 'Public keys that verify access tokens',
          response: { 200: jwksSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300');
        return { keys: [context.tokens.publicJwk] };
      },
    );
  };
}
