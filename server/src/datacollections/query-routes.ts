import {
  aggregateAnswerSchema,
  aggregateRequestSchema,
  columnParamsSchema,
  downloadQuerySchema,
  idParamsSchema,
  listQuerySchema,
  previewAnswerSchema,
  previewQuerySchema,
  problemSchema,
  schemaQuerySchema,
  summaryAnswerSchema,
  summaryQuerySchema,
  tableSchemaAnswerSchema,
  tableVersionListSchema,
  valuesAnswerSchema,
  valuesQuerySchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { DataCollectionQueries } from './queries.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['data collections'], security: [{ bearerAuth: [] }] };

/** Reading a data collection's rows: schema, preview, summary, values, aggregates, download, versions. */
export function dataCollectionQueryRoutes(
  { queries }: { queries: DataCollectionQueries },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/datacollections/:id/schema',
      {
        schema: {
          ...common,
          summary: "The columns of a data collection's table",
          params: idParamsSchema,
          querystring: schemaQuerySchema,
          response: { 200: tableSchemaAnswerSchema, ...errors },
        },
      },
      async (request) => queries.schema(await actorOf(request), request.params.id, request.query.version),
    );
    app.get(
      '/datacollections/:id/preview',
      {
        schema: {
          ...common,
          summary: 'A page of rows',
          description:
            '`sort=col:asc,col2:desc` (nulls last; the other columns break ties), `filters` a JSON list of filters, ' +
            '`version` reads an earlier version of the table.',
          params: idParamsSchema,
          querystring: previewQuerySchema,
          response: { 200: previewAnswerSchema, ...errors },
        },
      },
      async (request) => queries.preview(await actorOf(request), request.params.id, request.query),
    );
    app.get(
      '/datacollections/:id/summary',
      {
        schema: {
          ...common,
          summary: 'Statistics of every column',
          params: idParamsSchema,
          querystring: summaryQuerySchema,
          response: { 200: summaryAnswerSchema, ...errors },
        },
      },
      async (request) => queries.summary(await actorOf(request), request.params.id, request.query.version),
    );
    app.get(
      '/datacollections/:id/values/:column',
      {
        schema: {
          ...common,
          summary: 'Distinct values of a column with their counts, most frequent first',
          description: 'An unknown column answers 404.',
          params: columnParamsSchema,
          querystring: valuesQuerySchema,
          response: { 200: valuesAnswerSchema, ...errors },
        },
      },
      async (request) =>
        queries.values(await actorOf(request), request.params.id, request.params.column, request.query),
    );
    app.post(
      '/datacollections/:id/aggregate',
      {
        config: { access: 'read' },
        schema: {
          ...common,
          summary: 'Group, aggregate and filter rows',
          params: idParamsSchema,
          body: aggregateRequestSchema,
          response: { 200: aggregateAnswerSchema, ...errors },
        },
      },
      async (request) => queries.aggregate(await actorOf(request), request.params.id, request.body),
    );
    app.get(
      '/datacollections/:id/download',
      {
        // A HEAD would run the whole export.
        exposeHeadRoute: false,
        schema: {
          ...common,
          summary: 'Download the rows as CSV or Parquet',
          description: '`filters` (JSON list) and `version` as for the preview. 404 while there is no data yet.',
          params: idParamsSchema,
          querystring: downloadQuerySchema,
          response: { 200: z.unknown().describe('the CSV or Parquet file'), ...errors },
        },
      },
      async (request, reply) => {
        const download = await queries.download(await actorOf(request), request.params.id, request.query);
        return reply
          .type(download.contentType)
          .header('content-length', download.size)
          .header('content-disposition', `attachment; filename="${download.filename}"`)
          .send(download.stream);
      },
    );
    app.get(
      '/datacollections/:id/versions',
      {
        schema: {
          ...common,
          summary: "The versions (commits) of a data collection's table, newest first",
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: tableVersionListSchema, ...errors },
        },
      },
      async (request) => queries.versions(await actorOf(request), request.params.id, request.query),
    );
  };
}
