import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { admit } from '../policy/policy.js';
import type { Authenticator } from './authentication.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `open`: the route takes no user's token (sign-in, provisioning, public documents), so the
     * sign-in requirement below is not applied and a stale token does no harm. `read`: a POST
     * that only reads (a query too big for a URL), admitted like a GET.
     */
    access?: 'open' | 'read';
  }
}

/** One route of the API as registered, and whether it is open to callers without a session. */
export interface RegisteredRoute {
  method: string;
  /** The path with Fastify's parameters (`/service/api/v1/projects/:id`). */
  url: string;
  open: boolean;
  write: boolean;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route `requireSession` saw registered on this app (tests enumerate them). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registries.get(app) ?? [];
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Puts the policy's sign-in requirement in front of every route registered after it in `scope`:
 * it runs on request, before the body is read and before any id is looked up, so an anonymous
 * caller gets the same 401 for an existing and a missing target (docs/architecture.md "API conventions"). Routes opt out
 * only by declaring `config: { access: 'open' }`.
 */
export function requireSession(root: FastifyInstance, scope: FastifyInstance, actorOf: Authenticator): void {
  const registry: RegisteredRoute[] = [];
  registries.set(root, registry);
  const guards = {
    read: (async (request) => admit(await actorOf(request), 'read')) as onRequestAsyncHookHandler,
    write: (async (request) => admit(await actorOf(request), 'write')) as onRequestAsyncHookHandler,
  };
  scope.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const write = route.config?.access !== 'read' && methods.some((method) => !READ_METHODS.has(method));
    const open = route.config?.access === 'open';
    for (const method of methods) registry.push({ method, url: route.url, open, write });
    if (open) return;
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [write ? guards.write : guards.read, ...own];
  });
}
