import {
  magicLinkRequestSchema,
  magicLinkSchema,
  problemSchema,
  provisionAnswerSchema,
  provisionRequestSchema,
  redeemTicketRequestSchema,
  sessionAnswerSchema,
  temporaryUserRequestSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config/config.js';
import { DomainError } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { UsersService } from '../users/service.js';
import type { LoginTickets } from './login-tickets.js';
import { safeNextPath } from './next-path.js';
import type { Provisioning } from './provisioning.js';
import { secretsMatch } from './secrets.js';
import type { SessionService } from './session-service.js';
import type { TemporaryUsers } from './temporary-users.js';

const PROVISIONING_LIMIT = { max: 30, timeWindow: 60_000 };
const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 429: problemSchema };

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Sign-ins without a password: temporary users, provisioning, magic links. */
export interface AccessRoutesDeps {
  config: Pick<Config, 'publicUrl'> & {
    auth: Pick<
      Config['auth'],
      | 'mode'
      | 'publicAccessCode'
      | 'temporaryUserRateLimit'
      | 'temporaryUserExpiryHours'
      | 'provisioningKey'
      | 'magicLinkExpiryMinutes'
    >;
  };
  audit: Pick<AuditLog, 'record'>;
  provisioning: Pick<Provisioning, 'provision'>;
  sessions: Pick<SessionService, 'start'>;
  temporaryUsers: Pick<TemporaryUsers, 'create'>;
  tickets: Pick<LoginTickets, 'issue' | 'redeem'>;
  users: Pick<UsersService, 'repository'>;
}

export function accessRoutes(deps: AccessRoutesDeps, actorOf: Authenticator): FastifyPluginAsyncZod {
  const { config } = deps;
  return async (app) => {
    if (config.auth.mode === 'public' || config.auth.mode === 'demo') temporaryUserRoute(app, deps);
    const provisioningKey = config.auth.provisioningKey;
    if (provisioningKey !== null) provisioningRoute(app, deps, provisioningKey);
    magicLinkIssueRoute(app, deps, actorOf);
    magicLinkRedeemRoute(app, deps);
  };
}

/** A throwaway account per call, in public and demo mode (behind the access code when one is set). */
function temporaryUserRoute(app: App, { config, temporaryUsers }: AccessRoutesDeps): void {
  const accessCode = config.auth.publicAccessCode;
  app.post(
    '/auth/public/create_temporary_user',
    {
      // The limiter runs first (on request, before the body is read); refused attempts count,
      // which is what keeps the access code from being guessed.
      config: {
        access: 'open',
        rateLimit: {
          ...config.auth.temporaryUserRateLimit,
          timeWindow: config.auth.temporaryUserRateLimit.windowMs,
          keyGenerator: (request) => `temporary-user:${request.ip}`,
        },
      },
      schema: {
        tags: ['auth'],
        summary: 'Create a temporary user (public and demo mode)',
        description: `A new throwaway account per call, signed in for ${config.auth.temporaryUserExpiryHours} hours. ${accessCode === null ? '' : 'Requires the access code.'}`,
        body: temporaryUserRequestSchema.nullish(),
        response: { 201: sessionAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      if (accessCode !== null && !secretsMatch(request.body?.access_code ?? '', accessCode)) {
        throw new DomainError('access_code_invalid', 'the access code is wrong');
      }
      return reply.code(201).send(await temporaryUsers.create(request.ip));
    },
  );
}

/** Accounts created or signed in by a trusted system holding the provisioning key. */
function provisioningRoute(app: App, { audit, provisioning }: AccessRoutesDeps, provisioningKey: string): void {
  app.post(
    '/auth/provision_user',
    {
      config: {
        access: 'open',
        rateLimit: { ...PROVISIONING_LIMIT, keyGenerator: (request) => `provisioning:${request.ip}` },
      },
      // After the rate limiter (an onRequest hook), so guessing the key is limited too.
      preValidation: async (request) => {
        const presented = request.headers['x-provisioning-key'];
        if (typeof presented !== 'string' || !secretsMatch(presented, provisioningKey)) {
          await audit.record({
            type: 'provisioning.refused',
            clientAddress: request.ip,
            details: { reason: 'invalid_key' },
          });
          throw new DomainError('invalid_key', 'the provisioning key is missing or wrong');
        }
      },
      schema: {
        tags: ['auth'],
        summary: 'Create or get an account and sign it in (provisioning key)',
        description:
          'Authenticated by the `X-Provisioning-Key` header. 201 when the account was created, 200 when it existed. Admin accounts are never provisioned.',
        body: provisionRequestSchema,
        response: { 200: provisionAnswerSchema, 201: provisionAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      const answer = await provisioning.provision(request.body.email, request.ip);
      return reply.code(answer.created ? 201 : 200).send(answer);
    },
  );
}

/** A signed-in user's single-use sign-in link for themselves. */
function magicLinkIssueRoute(
  app: App,
  { config, audit, tickets, users }: AccessRoutesDeps,
  actorOf: Authenticator,
): void {
  app.post(
    '/auth/magic_link',
    {
      schema: {
        tags: ['auth'],
        summary: 'Create a single-use sign-in link for yourself',
        description: `Valid ${config.auth.magicLinkExpiryMinutes} minutes. The ticket rides in the URL fragment, so it never reaches server logs.`,
        security: [{ bearerAuth: [] }],
        body: magicLinkRequestSchema.nullish(),
        response: { 201: magicLinkSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await actorOf(request);
      authorize(actor, 'magic_link.create');
      const nextPath = safeNextPath(request.body?.next);
      const user = await users.repository.findById(actor.userId);
      if (!user) throw new DomainError('token_invalid', 'the session has ended');
      const { ticket, expiresAt } = await tickets.issue(
        user,
        'magic_link',
        nextPath,
        config.auth.magicLinkExpiryMinutes * 60,
      );
      await audit.record({
        type: 'magic_link.issued',
        actorUserId: actor.userId,
        subjectUserId: user.id,
        subjectEmail: user.email,
        clientAddress: request.ip,
        details: { next: nextPath, expires_at: expiresAt },
      });
      const fragment = new URLSearchParams({ ticket, next: nextPath });
      return reply.code(201).send({ url: `${config.publicUrl}/auth/magic#${fragment}`, expires_at: expiresAt });
    },
  );
}

/** Spending a sign-in ticket (a magic link's, or an identity provider's hand-off) for a session. */
function magicLinkRedeemRoute(app: App, { audit, sessions, tickets, users }: AccessRoutesDeps): void {
  app.post(
    '/auth/magic_link/redeem',
    {
      config: { access: 'open' },
      schema: {
        tags: ['auth'],
        summary: 'Spend a sign-in ticket (magic link or identity-provider hand-off) for a session',
        body: redeemTicketRequestSchema,
        response: { 200: sessionAnswerSchema, ...errors },
      },
    },
    async (request) => {
      const redeemed = await tickets.redeem(request.body.ticket);
      const user = await users.repository.findById(redeemed.userId);
      if (!user || user.disabled === 1 || (user.expires_at !== null && user.expires_at <= new Date().toISOString())) {
        throw new DomainError('token_invalid', 'this sign-in link is invalid, expired or already used');
      }
      await audit.record({
        type: 'magic_link.redeemed',
        subjectUserId: user.id,
        subjectEmail: user.email,
        clientAddress: request.ip,
        details: { purpose: redeemed.purpose },
      });
      return sessions.start(user);
    },
  );
}
