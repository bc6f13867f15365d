import { Readable } from 'node:stream';
import {
  componentDownloadQuerySchema,
  componentParamsSchema,
  componentRowsQuerySchema,
  type DashboardDataLine,
  dashboardColorsAnswerSchema,
  dashboardDataAnswerSchema,
  dashboardDataRequestSchema,
  idParamsSchema,
  previewAnswerSchema,
  problemSchema,
} from '@service/common';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { admitRequest, iterateWithin } from '../http/bounded-request.js';
import type { RequestWork } from '../rate-limit/request-work.js';
import type { DashboardColors } from './colors.js';
import type { DashboardDataService, PreparedData } from './data/service.js';

const errors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
  404: problemSchema,
  413: problemSchema,
  429: problemSchema,
  504: problemSchema,
};
const NDJSON = 'application/x-ndjson';

/** What the dashboard data routes use. */
export interface DashboardDataRoutesDeps {
  dashboardData: DashboardDataService;
  dashboardColors: DashboardColors;
  requestWork: RequestWork;
}

type App = Parameters<FastifyPluginAsyncZod>[0];

/** `POST /dashboards/{id}/data` and what goes with it: the palette, a table's pages and its CSV. */
export function dashboardDataRoutes(deps: DashboardDataRoutesDeps, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    dataRoute(app, deps, actorOf);
    colorsRoute(app, deps, actorOf);
    tableRowsRoutes(app, deps, actorOf);
  };
}

/** The components' data for a set of filters, whole or streamed. */
function dataRoute(app: App, { dashboardData, requestWork }: DashboardDataRoutesDeps, actorOf: Authenticator): void {
  app.post(
    '/dashboards/:id/data',
    {
      // Only reads: a POST because filters can outgrow a URL.
      config: { access: 'read' },
      schema: {
        tags: ['dashboards'],
        security: [{ bearerAuth: [] }],
        summary: "Every (or the named) component's data for a set of filters (readers of the dashboard)",
        description:
          'Figures come aggregated, binned or sampled, cards with their unfiltered number, select-like ' +
          'widgets with their options under the other filters, range widgets with their bounds, tables ' +
          `with their first page. With \`Accept: ${NDJSON}\` the answer streams as lines: first ` +
          '`{version}`, then `{component_id, data}` as each component finishes. A component that cannot ' +
          'be drawn (a column dropped since the dashboard was saved) answers `{error}` in its slot. ' +
          'Bounded (docs/configuration.md, "Request limits"): too many filter values or previews → 413 ' +
          '`request_too_large` before any work; an answer beyond its size → 413 (JSON) or `request_too_large` ' +
          'in the remaining slots (stream); a statement beyond its time → `time_limit_exceeded` in its ' +
          'slot, the request beyond its time → 504; too many requests at once or per minute → 429 with ' +
          '`Retry-After`. A client that disconnects stops the work.',
        params: idParamsSchema,
        body: dashboardDataRequestSchema,
        response: { 200: dashboardDataAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await actorOf(request);
      const work = await admitRequest(requestWork, request, reply, actor);
      const prepared = await work.run(() =>
        dashboardData.prepare(actor, request.params.id, request.body, (componentId, error) =>
          request.log.error({ err: error, componentId }, 'a dashboard component failed'),
        ),
      );
      // Both forms bypass the response schema's serializer (a check of the whole answer held the
      // event loop for seconds): the JSON follows dashboardDataAnswerSchema, the lines
      // dashboardDataLineSchema, as the data service makes them.
      const untyped: FastifyReply = reply;
      if (!(request.headers.accept ?? '').includes(NDJSON)) {
        const json = await work.run(() => dashboardData.answerJson(prepared));
        return untyped
          .type('application/json; charset=utf-8')
          .serializer((payload: unknown) => payload as string)
          .send(json);
      }
      return untyped.type(NDJSON).send(Readable.from(iterateWithin(work, lines(prepared))));
    },
  );
}

/** The dashboard's palette of category values. */
function colorsRoute(
  app: App,
  { dashboardColors, requestWork }: DashboardDataRoutesDeps,
  actorOf: Authenticator,
): void {
  app.get(
    '/dashboards/:id/colors',
    {
      schema: {
        tags: ['dashboards'],
        security: [{ bearerAuth: [] }],
        summary: "The dashboard's palette: one colour per category value (readers of the dashboard)",
        description:
          'Category values in the order they take the series colours (the n-th value the n-th colour): ' +
          'the stored ones, then those the figures show unfiltered and the palette lacks, in order of ' +
          'first appearance, stored as they are first seen (docs/dashboards.md, "Colours"). Bounded as ' +
          'the data route is.',
        params: idParamsSchema,
        response: { 200: dashboardColorsAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await actorOf(request);
      const work = await admitRequest(requestWork, request, reply, actor);
      const colors = await work.run(() =>
        dashboardColors.of(actor, request.params.id, (componentId, error) =>
          request.log.error({ err: error, componentId }, 'a dashboard component failed'),
        ),
      );
      return { colors };
    },
  );
}

/** A table component's rows: a page of them, or all of them as CSV. */
function tableRowsRoutes(
  app: App,
  { dashboardData, requestWork }: DashboardDataRoutesDeps,
  actorOf: Authenticator,
): void {
  app.get(
    '/dashboards/:id/components/:component_id/rows',
    {
      schema: {
        tags: ['dashboards'],
        security: [{ bearerAuth: [] }],
        summary: "A page of a table component's rows (readers of the dashboard)",
        description:
          "`limit` defaults to the component's `page_size`, `sort=col:asc,col2:desc` to its `sort`; only the " +
          "component's columns are shown and sortable (rows also carry its `select_by` column when it is not " +
          'shown, so rows can be selected by it). `filters` (JSON) and `as_of` (an ISO time, or a JSON ' +
          'map of versions) narrow and time-travel the rows as in `POST /dashboards/{id}/data`; ' +
          '`column_filters` (JSON `[{column, op, value}]`: contains, between, in) narrow this table only. ' +
          'A component other than a table has no rows (400).',
        params: componentParamsSchema,
        querystring: componentRowsQuerySchema,
        response: { 200: previewAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await actorOf(request);
      const work = await admitRequest(requestWork, request, reply, actor);
      return work.run(() => dashboardData.rows(actor, request.params.id, request.params.component_id, request.query));
    },
  );

  app.get(
    '/dashboards/:id/components/:component_id/download',
    {
      // A HEAD would run the whole export.
      exposeHeadRoute: false,
      schema: {
        tags: ['dashboards'],
        security: [{ bearerAuth: [] }],
        summary: "A table component's rows as CSV (readers of the dashboard)",
        description:
          "Every row under `filters`, `as_of` and `column_filters` (as for the rows route), the component's " +
          'columns or `columns` (JSON: the ones a reader shows, in order; 400 for one it lacks), in its ' +
          '`sort` (or `sort=col:asc,…`). A component other than a table has no rows (400); 404 while there is ' +
          'no data yet.',
        params: componentParamsSchema,
        querystring: componentDownloadQuerySchema,
        response: { 200: z.unknown().describe('the CSV file'), ...errors },
      },
    },
    async (request, reply) => {
      const { id, component_id } = request.params;
      const actor = await actorOf(request);
      const work = await admitRequest(requestWork, request, reply, actor);
      const download = await work.run(() => dashboardData.download(actor, id, component_id, request.query));
      return reply
        .type(download.contentType)
        .header('content-length', download.size)
        .header('content-disposition', `attachment; filename="${download.filename}"`)
        .send(download.stream);
    },
  );
}

/** The stream's lines (dashboardDataLineSchema), each component's from the JSON its result carries. */
async function* lines(prepared: PreparedData): AsyncGenerator<string> {
  const first: DashboardDataLine = { version: prepared.version };
  yield `${JSON.stringify(first)}\n`;
  for await (const { component_id, json } of prepared.components()) {
    yield `{"component_id":${JSON.stringify(component_id)},"data":${json}}\n`;
  }
}
