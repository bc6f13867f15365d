import multipart from '@fastify/multipart';
import {
  createDataCollectionRequestSchema,
  dataCollectionDeletionSummarySchema,
  dataCollectionListSchema,
  dataCollectionSchema,
  fileListSchema,
  fileSchema,
  idParamsSchema,
  listQuerySchema,
  pathFitQuerySchema,
  pathFitSchema,
  problemSchema,
  tagSchema,
  updateDataCollectionRequestSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import { DomainError } from '../errors.js';
import { cutOff, MultipartEnd } from '../files/multipart-end.js';
import type { FilesService } from '../files/service.js';
import type { Authenticator } from '../http/authentication.js';

import type { DataCollectionsService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['data collections'], security: [{ bearerAuth: [] }] };

/**
 * The multipart parser (busboy) fails with plain errors when the body is not well-formed: no
 * boundary, a bad part header, a body that ends before its closing boundary. Those are the
 * client's mistake, not ours.
 */
const MALFORMED_MULTIPART = [
  'Multipart: Boundary not found',
  'Malformed part header',
  'Unexpected end of multipart data',
  'Part terminated early due to unexpected end of multipart data',
  'File terminated early due to unexpected end of multipart data',
  'Field terminated early due to unexpected end of multipart data',
];

function asMalformedMultipart(error: unknown): unknown {
  if (error instanceof Error && !(error instanceof DomainError) && MALFORMED_MULTIPART.includes(error.message)) {
    return new DomainError(
      'malformed_body',
      `the multipart body is malformed or cut off (${error.message}): send the upload again as multipart/form-data, the fields \`run\` and \`path\` before the part \`file\``,
    );
  }
  return error;
}

/** What the collection routes call; the composition root (context.ts) hands them over. */
export interface DataCollectionsRoutesDeps {
  config: Pick<Config, 'uploadMaxBytes'>;
  dataCollections: DataCollectionsService;
  files: FilesService;
}

export function dataCollectionsRoutes(
  context: DataCollectionsRoutesDeps,
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  const { dataCollections } = context;
  return async (app) => {
    await app.register(multipart, {
      // One byte over the cap, so that the hashing stream (which knows the exact cap) refuses it.
      limits: { fileSize: context.config.uploadMaxBytes + 1, files: 1, fields: 5, fieldSize: 4096, parts: 10 },
    });

    uploadRoute(app, context, actorOf);

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
      '/datacollections/:id/deletion-summary',
      {
        schema: {
          ...common,
          summary:
            'What deleting the collection affects: its files (which stay) and the dashboards showing it (editors)',
          params: idParamsSchema,
          response: { 200: dataCollectionDeletionSummarySchema, ...errors },
        },
      },
      async (request) => dataCollections.deletionSummary(await actorOf(request), request.params.id),
    );
    app.get(
      '/datacollections/:id/path-fit',
      {
        schema: {
          ...common,
          summary: 'Whether an upload path fits the pattern, and how to make it fit (editors)',
          description:
            'Asked before an upload: `pattern_with_path` is the pattern widened to take the path, `rename_to` a path with the same file name that the pattern takes.',
          params: idParamsSchema,
          querystring: pathFitQuerySchema,
          response: { 200: pathFitSchema, ...errors },
        },
      },
      async (request) => dataCollections.pathFit(await actorOf(request), request.params.id, request.query.path),
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

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Uploading a file into a collection: multipart fields `run` and `path`, then the part `file`. */
function uploadRoute(app: App, { dataCollections, files }: DataCollectionsRoutesDeps, actorOf: Authenticator): void {
  app.post(
    '/datacollections/:id/files',
    {
      schema: {
        ...common,
        summary: 'Upload a file into a data collection (editors)',
        description:
          'multipart/form-data with optional fields `run` (run tag, default `uploads`) and `path` (relative to the run, default the file name; must match the collection’s pattern), then the part `file`. Fields must come before the file. The same run and path again replace the file.',
        params: idParamsSchema,
        consumes: ['multipart/form-data'],
        response: { 201: fileSchema, 409: problemSchema, 413: problemSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = await actorOf(request);
      // Permission first: nobody streams bytes at us without the right to keep them.
      await dataCollections.access(actor, request.params.id, 'resource.edit');
      const fields: { run: string; path?: string } = { run: 'uploads' };
      let uploaded: Awaited<ReturnType<typeof files.upload>> | undefined;
      let end: MultipartEnd | undefined;
      try {
        const parts = request.parts();
        // The first step pipes the request into the parser; the watcher must see every byte after that.
        const first = parts.next();
        end = new MultipartEnd(request.raw);
        for (let next = await first; next.done !== true; next = await parts.next()) {
          const part = next.value;
          if (part.type === 'field') {
            if (uploaded !== undefined)
              throw new DomainError(
                'validation_failed',
                'a field came after the file: send the fields `run` and `path` before the part `file`',
              );
            takeField(fields, part.fieldname, String(part.value));
          } else if (part.fieldname === 'file' && uploaded === undefined) {
            uploaded = await files.upload(actor, request.params.id, {
              runTag: fields.run,
              path: fields.path ?? part.filename,
              content: end.guard(part.file),
            });
          } else {
            part.file.resume();
            throw new DomainError(
              'validation_failed',
              'send exactly one file, in the part named `file` (upload several files one by one)',
            );
          }
        }
      } catch (error) {
        // Whatever failed after the body was cut off short, the cause is the cut.
        if (end?.cutOff && !(error instanceof DomainError)) throw cutOff();
        throw asMalformedMultipart(error);
      }
      if (uploaded === undefined) {
        throw new DomainError(
          'validation_failed',
          'no file was sent: add the file as the form’s last part, named `file`',
          [{ path: 'file', message: 'required' }],
        );
      }
      return reply.code(201).send(uploaded);
    },
  );
}

/** One form field before the file: the run tag (checked) or the path; any other is refused. */
function takeField(fields: { run: string; path?: string }, name: string, value: string): void {
  if (name === 'run') {
    const tag = tagSchema.safeParse(value);
    if (!tag.success) {
      throw new DomainError(
        'validation_failed',
        'invalid run tag: use letters, digits, `_`, `.` and `-`, starting with a letter or digit',
        [{ path: 'run', message: tag.error.issues[0]?.message ?? 'invalid' }],
      );
    }
    fields.run = tag.data;
  } else if (name === 'path') {
    fields.path = value;
  } else {
    throw new DomainError('validation_failed', `unknown form field ${name}: send only \`run\`, \`path\` and \`file\``, [
      { path: name, message: 'unknown field' },
    ]);
  }
}
