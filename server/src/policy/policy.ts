import { DomainError } from '../errors.js';
import type { Actor } from './actor.js';

/**
 * Every action a route may ask about. Resource-scoped actions (projects, dashboards) join this
 * list with a resource argument as those resources arrive.
 */
export type Action =
  | 'session.read_own' // GET /auth/me, POST /auth/logout
  | 'users.administer'; // list, create, read, change and delete any account

/** The one place that decides who may do what. */
export function can(actor: Actor, action: Action): boolean {
  if (actor.kind === 'anonymous') return false;
  switch (action) {
    case 'session.read_own':
      return true;
    case 'users.administer':
      return actor.role === 'admin';
  }
}

/** `can`, turned into the failure a route must answer: 401 for nobody, 403 for too weak a role. */
export function authorize(actor: Actor, action: Action): asserts actor is Extract<Actor, { kind: 'user' }> {
  if (can(actor, action)) return;
  if (actor.kind === 'anonymous') throw new DomainError('unauthenticated', 'sign in to do this');
  throw new DomainError('forbidden', 'your role does not allow this');
}
