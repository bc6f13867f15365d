import type { FastifyRequest } from 'fastify';
import type { SessionService } from '../auth/session-service.js';
import { DomainError } from '../errors.js';
import { type Actor, anonymous } from '../policy/actor.js';

/**
 * Turns a request into its Actor. Resolved only when a route asks (so a stale token sent to a
 * public route does no harm) and at most once per request.
 */
export function createAuthenticator(sessions: SessionService) {
  const resolved = new WeakMap<FastifyRequest, Promise<Actor>>();

  async function resolve(request: FastifyRequest): Promise<Actor> {
    const header = request.headers.authorization;
    if (header === undefined) return anonymous;
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
    if (!match?.[1]) throw new DomainError('token_invalid', 'the Authorization header must be "Bearer <token>"');
    const { user, sessionId } = await sessions.authenticate(match[1]);
    return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId };
  }

  return function actorOf(request: FastifyRequest): Promise<Actor> {
    let actor = resolved.get(request);
    if (actor === undefined) {
      actor = resolve(request);
      resolved.set(request, actor);
    }
    return actor;
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
