import { oauthLoginQuerySchema } from '@service/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.js';
import { API_PREFIX } from '../http/prefix.js';
import { safeNextPath } from './next-path.js';
import { type OAuthRefusal, OAuthRefused, type OAuthSignIn } from './oauth.js';

/** Sign-ins a client address may start; each one writes a state row. Counted in the database. */
const LOGIN_LIMIT = { max: 20, timeWindow: 60_000 };
const BINDING_COOKIE = 'service_oauth_state';
/** As long as the state it binds lives (oauth.ts). */
const BINDING_MAX_AGE_SECONDS = 600;

/** The value of one cookie of the request, if it sent it. */
function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Browser routes of identity-provider sign-in. Every outcome is a redirect, never a JSON error
 * page. The browser that starts a sign-in gets a cookie holding a hash of its state, which the
 * callback requires: HttpOnly, SameSite=Lax (the provider's redirect back is a top-level
 * navigation, which Lax cookies accompany), Secure on https, and sent to these two routes only.
 */
export function oauthRoutes(
  { config }: { config: Pick<Config, 'publicUrl'> },
  oauth: OAuthSignIn,
): FastifyPluginAsyncZod {
  const { publicUrl } = config;
  const base = new URL(publicUrl);
  const cookieAttributes = [
    `Path=${base.pathname.replace(/\/+$/, '')}${API_PREFIX}/auth/oauth`,
    'HttpOnly',
    'SameSite=Lax',
    ...(base.protocol === 'https:' ? ['Secure'] : []),
  ].join('; ');
  const bindingCookie = (value: string, maxAge: number) =>
    `${BINDING_COOKIE}=${value}; Max-Age=${maxAge}; ${cookieAttributes}`;

  function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
    if (!(error instanceof OAuthRefused)) throw error;
    request.log.warn({ reason: error.reason, detail: error.message }, 'identity-provider sign-in refused');
    const reason: OAuthRefusal = error.reason;
    return reply.redirect(`${publicUrl}/auth/sign-in?error=${reason}`);
  }

  return async (app) => {
    app.get(
      '/auth/oauth/login',
      {
        config: {
          access: 'open',
          rateLimit: { ...LOGIN_LIMIT, keyGenerator: (request: FastifyRequest) => `oauth-login:${request.ip}` },
        },
        schema: {
          tags: ['auth'],
          summary: 'Start sign-in with the identity provider (browser redirect)',
          description: `Rate-limited to ${LOGIN_LIMIT.max} a minute per client address.`,
          querystring: oauthLoginQuerySchema,
        },
      },
      async (request, reply) => {
        const nextPath = safeNextPath(request.query.next);
        try {
          const { url, binding } = await oauth.begin(nextPath);
          return reply.header('set-cookie', bindingCookie(binding, BINDING_MAX_AGE_SECONDS)).redirect(url);
        } catch (error) {
          return refuse(request, reply, error);
        }
      },
    );

    app.get(
      '/auth/oauth/callback',
      {
        config: { access: 'open' },
        schema: {
          tags: ['auth'],
          summary: 'Where the identity provider sends the browser back',
          description: 'Redirects to `/auth/magic#ticket=…&next=…` on success, `/auth/sign-in?error=<code>` otherwise.',
        },
      },
      async (request, reply) => {
        // Spent or refused, the binding has done its work.
        reply.header('set-cookie', bindingCookie('', 0));
        try {
          const { ticket, nextPath } = await oauth.finish(
            new URL(request.url, publicUrl),
            request.ip,
            cookieOf(request, BINDING_COOKIE),
          );
          return reply.redirect(`${publicUrl}/auth/magic#${new URLSearchParams({ ticket, next: nextPath })}`);
        } catch (error) {
          return refuse(request, reply, error);
        }
      },
    );
  };
}
