import {
  type AuthMode,
  createdEmbedTokenSchema,
  createEmbedTokenRequestSchema,
  embedTokenListQuerySchema,
  embedTokenListSchema,
  embedTokenParamsSchema,
  exportParamsSchema,
  exportQuerySchema,
  exportSpecSchema,
  idParamsSchema,
  problemSchema,
} from '@service/common';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import { admitRequest } from '../http/bounded-request.js';
import { problem, statusOf } from '../http/problem.js';
import type { Actor } from '../policy/actor.js';
import type { RequestWork } from '../rate-limit/request-work.js';
import type { EmbedTokens } from './embed-tokens.js';
import type { Page } from './page.js';
import type { ExportService } from './service.js';

const ANONYMOUS: Actor = { kind: 'anonymous', mayBrowsePublic: false };

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };

type App = Parameters<FastifyPluginAsyncZod>[0];

/** What the export routes use. */
export interface ExportRoutesDeps {
  embedTokens: EmbedTokens;
  exports: ExportService;
  requestWork: RequestWork;
}

/** Embed tokens of a dashboard (owners and editors) and the export route (readers, the public, tokens). */
export function exportRoutes(
  deps: ExportRoutesDeps,
  actorOf: Authenticator,
  authMode: AuthMode,
): FastifyPluginAsyncZod {
  return async (app) => {
    embedTokenRoutes(app, deps.embedTokens, actorOf);
    exportRoute(app, deps, actorOf, authMode);
  };
}

const tokens = { tags: ['export'], security: [{ bearerAuth: [] }] };

/** Creating, listing and revoking a dashboard's embed tokens. */
function embedTokenRoutes(app: App, embedTokens: EmbedTokens, actorOf: Authenticator): void {
  app.post(
    '/dashboards/:id/embed_tokens',
    {
      schema: {
        ...tokens,
        summary: 'Create an embed token: read-only access to the dashboard or one component (owners and editors)',
        description:
          'The answer is the only time the secret is shown. `filters` are fixed: they apply on top of the ' +
          "embedding page's, and where both name one component the token's value is kept. `as_of` pins " +
          'the table versions. The token goes in `?token=` of the export route and opens nothing else.',
        params: idParamsSchema,
        body: createEmbedTokenRequestSchema,
        response: { 201: createdEmbedTokenSchema, ...errors },
      },
    },
    async (request, reply) => {
      const created = await embedTokens.create(await actorOf(request), request.params.id, request.body, request.ip);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/dashboards/:id/embed_tokens',
    {
      schema: {
        ...tokens,
        summary: "The dashboard's embed tokens, newest first, never their secrets (owners and editors)",
        params: idParamsSchema,
        querystring: embedTokenListQuerySchema,
        response: { 200: embedTokenListSchema, ...errors },
      },
    },
    async (request) => embedTokens.list(await actorOf(request), request.params.id, request.query),
  );

  app.delete(
    '/dashboards/:id/embed_tokens/:embed_token_id',
    {
      schema: {
        ...tokens,
        summary: 'Revoke an embed token at once (owners and editors)',
        params: embedTokenParamsSchema,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { id, embed_token_id } = request.params;
      await embedTokens.revoke(await actorOf(request), id, embed_token_id, request.ip);
      return reply.code(204).send(null);
    },
  );
}

/** One component as an ECharts spec or a self-contained page. */
function exportRoute(
  app: App,
  { exports, requestWork }: ExportRoutesDeps,
  actorOf: Authenticator,
  authMode: AuthMode,
): void {
  app.get(
    '/export/components/:dashboard_id/:component_id',
    {
      // Open: an embed token in the query string, not a session, may be the caller's only right.
      config: { access: 'open' },
      schema: {
        tags: ['export'],
        security: [{ bearerAuth: [] }, {}],
        summary: 'One component as an ECharts spec or a self-contained HTML page (readers, public, embed tokens)',
        description:
          "`format=spec` (default): JSON; a figure's `spec` is a complete ECharts option with its data in " +
          "`dataset.source` (`echarts.init(el).setOption(spec)`), a card's `{value, unfiltered_value, label}`, " +
          "a table's first page `{columns, rows}`. `format=html`: one `text/html` page that draws the " +
          "component with no request to any other URL (CSP `default-src 'none'`), framable as " +
          '`SERVICE_EXPORT_FRAME_ANCESTORS` says; `theme=light|dark`. Text components export as HTML only. ' +
          "A reader's view rides along: a table's `column_filters` (JSON), `sort` and `columns` (JSON, shown " +
          "ones in order), a coverage track's `contig` (400 on a component without it). " +
          'Who: readers (bearer token), anyone for a public dashboard in public or demo mode, or an embed ' +
          'token in `token` (401 `token_invalid` when unknown, revoked, expired or for another component).',
        params: exportParamsSchema,
        querystring: exportQuerySchema,
        response: {
          200: exportSpecSchema.or(z.string()),
          409: problemSchema,
          413: problemSchema,
          429: problemSchema,
          504: problemSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { dashboard_id, component_id } = request.params;
      const { query } = request;
      // Other sites' pages may fetch a spec: what they get is what the token or public access they
      // hold already gives (no cookie is ever involved, so no one else's rights ride along). In
      // single-user mode every request is the admin, so any page the operator visits would read
      // everything: there, only a request carrying an embed token is answered across origins.
      if (authMode !== 'single_user' || query.token !== undefined) reply.header('access-control-allow-origin', '*');
      // Token holders count by address: their bearer header, if any, is never read.
      const actor = query.token === undefined ? await actorOf(request) : undefined;
      const work = await admitRequest(requestWork, request, reply, actor ?? ANONYMOUS);
      const caller = { token: query.token, actor: async () => actor ?? actorOf(request) };
      const report = (componentId: string, error: unknown) =>
        request.log.error({ err: error, componentId }, 'an exported component failed');
      if (query.format === 'spec') {
        const answer = await work.run(() => exports.export(caller, dashboard_id, component_id, query, report));
        if (answer.format !== 'spec') throw new Error('the export answered a page where a spec was asked');
        return answer.spec;
      }
      const { status, page } = await htmlExport(exports, query, () =>
        work.run(() => exports.export(caller, dashboard_id, component_id, query, report)),
      );
      return sendPage(reply, status, page);
    },
  );
}

type ExportAnswer = Awaited<ReturnType<ExportService['export']>>;

/** The exported page, or a page saying what went wrong (with its status): it sits in someone's iframe. */
async function htmlExport(
  exports: ExportService,
  query: Parameters<ExportService['message']>[2],
  run: () => Promise<ExportAnswer>,
): Promise<{ status: number; page: Page }> {
  try {
    const answer = await run();
    if (answer.format !== 'html') throw new Error('the export answered a spec where a page was asked');
    return { status: 200, page: answer.page };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return {
      status: statusOf(error.code),
      page: await exports.message(problem(error.code).title, error.message, query),
    };
  }
}

function sendPage(reply: FastifyReply, status: number, page: Page) {
  // The address may carry an embed token: no Referer takes it to links followed from the page.
  return reply
    .code(status)
    .header('content-security-policy', page.csp)
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .serializer((payload: unknown) => payload as string)
    .send(page.html);
}
