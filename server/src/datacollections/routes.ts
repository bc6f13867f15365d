import {
  createDataCollectionRequestSchema,
  dataCollectionListSchema,
  dataCollectionSchema,
  fileListSchema,
  idParamsSchema,
  listQuerySchema,
  problemSchema,
  updateDataCollectionRequestSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Authenticator } from '../http/authentication.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['data collections'], security: [{ bearerAuth: [] }] };

export function dataCollectionsRoutes(context: AppContext, actorOf: Authenticator): FastifyPluginAsyncZod {
  const { dataCollections } = context;
  return async (app) => {
    app.get(
      '/workflows/:id/datacollections',
      {
        schema: {
          ...common,
          summary: 'Data collections of a workflow',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: dataCollectionListSchema, ...errors },
        },
      },
      async (request) => dataCollections.list(await actorOf(request), request.params.id, request.query),
    );
    app.post(
      '/workflows/:id/datacollections',
      {
        schema: {
          ...common,
          summary: 'Add a data collection (editors)',
          params: idParamsSchema,
          body: createDataCollectionRequestSchema,
          response: { 201: dataCollectionSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await dataCollections.create(await actorOf(request), request.params.id, request.body)),
    );
    app.get(
      '/datacollections/:id',
      {
        schema: {
          ...common,
          summary: 'One data collection',
          params: idParamsSchema,
          response: { 200: dataCollectionSchema, ...errors },
        },
      },
      async (request) => dataCollections.get(await actorOf(request), request.params.id),
    );
    app.patch(
      '/datacollections/:id',
      {
        schema: {
          ...common,
          summary: 'Change a data collection (editors)',
          params: idParamsSchema,
          body: updateDataCollectionRequestSchema,
          response: { 200: dataCollectionSchema, 409: problemSchema, ...errors },
        },
      },
      async (request) => dataCollections.update(await actorOf(request), request.params.id, request.body),
    );
    app.delete(
      '/datacollections/:id',
      {
        schema: {
          ...common,
          summary: 'Delete a data collection (editors)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await dataCollections.delete(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
    app.get(
      '/datacollections/:id/files',
      {
        schema: {
          ...common,
          summary: 'Registered files that belong to a data collection',
          params: idParamsSchema,
          querystring: listQuerySchema,
          response: { 200: fileListSchema, ...errors },
        },
      },
      async (request) => dataCollections.files(await actorOf(request), request.params.id, request.query),
    );
  };
}
