import { oauthLoginQuerySchema } from '@service/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.js';
import { safeNextPath } from './next-path.js';
import { type OAuthRefusal, OAuthRefused, type OAuthSignIn } from './oauth.js';

/** Browser routes of identity-provider sign-in. Every outcome is a redirect, never a JSON error page. */
export function oauthRoutes(context: AppContext, oauth: OAuthSignIn): FastifyPluginAsyncZod {
  const { publicUrl } = context.config;

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
        config: { access: 'open' },
        schema: {
          tags: ['auth'],
          summary: 'Start sign-in with the identity provider (browser redirect)',
          querystring: oauthLoginQuerySchema,
        },
      },
      async (request, reply) => {
        const nextPath = safeNextPath(request.query.next, publicUrl);
        try {
          return reply.redirect(await oauth.begin(nextPath));
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
        try {
          const { ticket, nextPath } = await oauth.finish(new URL(request.url, publicUrl), request.ip);
          return reply.redirect(`${publicUrl}/auth/magic#${new URLSearchParams({ ticket, next: nextPath })}`);
        } catch (error) {
          return refuse(request, reply, error);
        }
      },
    );
  };
}
