import type { FastifyRequest } from 'fastify';
import { isPersonalToken, type PersonalTokens } from '../auth/personal-tokens.js';
import type { SessionService } from '../auth/session-service.js';
import type { Config } from '../config/config.js';
import type { UserRow } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { Actor } from '../policy/actor.js';

/**
 * Turns a request into its Actor. Resolved only when a route asks (so a stale token sent to a
 * public route does no harm) and at most once per request. In single-user mode every request is
 * the one admin and any token is ignored. Bearer tokens are access tokens (JWT) of a session, or
 * personal access tokens (`pat_…`).
 */
export function createAuthenticator(
  config: { auth: Pick<Config['auth'], 'mode'> },
  sessions: Pick<SessionService, 'authenticate'>,
  singleUserId: string | null,
  personalTokens: Pick<PersonalTokens, 'authenticate'>,
) {
  const resolved = new WeakMap<FastifyRequest, Promise<Actor>>();
  // The user row read while authenticating, so a route that shows it need not read it again.
  const rows = new WeakMap<FastifyRequest, UserRow>();
  const anonymous: Actor = {
    kind: 'anonymous',
    mayBrowsePublic: config.auth.mode === 'public' || config.auth.mode === 'demo',
  };
  const singleUser: Actor | null =
    singleUserId === null
      ? null
      : { kind: 'user', userId: singleUserId, role: 'admin', isTemporary: false, sessionId: null };

  async function resolve(request: FastifyRequest): Promise<Actor> {
    if (singleUser !== null) return singleUser;
    const header = request.headers.authorization;
    if (header === undefined) return anonymous;
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
    if (!match?.[1]) throw new DomainError('token_invalid', 'the Authorization header must be "Bearer <token>"');
    // A personal access token (docs/auth.md): its user as they are now, narrowed by the token.
    if (isPersonalToken(match[1])) return personalTokens.authenticate(match[1], request.ip);
    const { user, sessionId } = await sessions.authenticate(match[1]);
    rows.set(request, user);
    return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId };
  }

  function actorOf(request: FastifyRequest): Promise<Actor> {
    let actor = resolved.get(request);
    if (actor === undefined) {
      actor = resolve(request);
      resolved.set(request, actor);
    }
    return actor;
  }
  return Object.assign(actorOf, {
    /** The signed-in user's row, once `actorOf` resolved a bearer token for this request. */
    rowOf: (request: FastifyRequest): UserRow | undefined => rows.get(request),
    /**
     * The request's credentials judged again now, for an answer that outlives a moment (the live
     * stream): rejects once the session ended, the token expired or the user was disabled.
     */
    again: (request: FastifyRequest): Promise<Actor> => resolve(request),
  });
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
