import multipart from '@fastify/multipart';
import {
  filePreviewRequestSchema,
  filePreviewSchema,
  fileSchema,
  idParamsSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.js';
import { DomainError } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import type { FilePreviews } from './preview.js';
import { withPreviewForm } from './preview-form.js';
import type { FilesService } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['files'], security: [{ bearerAuth: [] }] };

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` of a file of `size` bytes; one range only. */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return 'unsatisfiable';
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

/** What the file routes use. */
export interface FilesRoutesDeps {
  files: FilesService;
  filePreviews: FilePreviews;
  config: Pick<Config, 'uploadMaxBytes'>;
}

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Registered files (their record and bytes) and previews of files, registered or not. */
export function filesRoutes(
  { files, filePreviews, config }: FilesRoutesDeps,
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(multipart, {
      // One byte over the cap, so that the counting stream (which knows the exact cap) refuses it.
      limits: { fileSize: config.uploadMaxBytes + 1, files: 1, fields: 1, fieldSize: 65_536, parts: 2 },
    });
    previewRoutes(app, filePreviews, actorOf);
    fileRoutes(app, files, actorOf);
  };
}

/** The first rows of a file: one being uploaded, or one registered. */
function previewRoutes(app: App, filePreviews: FilePreviews, actorOf: Authenticator): void {
  app.post(
    '/projects/:id/files/preview',
    {
      schema: {
        ...common,
        summary: 'The first rows of a file not yet added, with its detected dialect and column types (editors)',
        description:
          'multipart/form-data: an optional field `options` (JSON: the body of `POST /files/{id}/preview`), ' +
          'then the part `file`. The file is read as a collection would read it and registered nowhere: ' +
          'what Add data shows before anything is created. A CSV, TSV or NDJSON file may be sent cut after ' +
          'its first lines. Editors of the project only.',
        params: idParamsSchema,
        consumes: ['multipart/form-data'],
        response: { 200: filePreviewSchema, 413: problemSchema, ...errors },
      },
    },
    async (request) => {
      const actor = await actorOf(request);
      return withPreviewForm(request, (upload, options) =>
        filePreviews.previewUpload(actor, request.params.id, upload, options),
      );
    },
  );

  app.post(
    '/files/:id/preview',
    {
      schema: {
        ...common,
        summary: 'The first rows of a file with its detected dialect and column types',
        description:
          'Reads a registered file as a collection would (before any table is built): `format` and ' +
          '`read_options` (delimiter, header, null_values, ' +
          'columns: {name: string|integer|double|boolean|date|timestamp}, derive: [{name, from, regex}]) ' +
          'override what is detected. Readers of the project may preview; `limit` is at most 200 rows.',
        params: idParamsSchema,
        body: filePreviewRequestSchema,
        response: { 200: filePreviewSchema, ...errors },
      },
    },
    async (request) => filePreviews.preview(await actorOf(request), request.params.id, request.body),
  );
}

/** A registered file's record and its bytes (whole or a range). */
function fileRoutes(app: App, files: FilesService, actorOf: Authenticator): void {
  app.get(
    '/files/:id',
    {
      schema: {
        ...common,
        summary: 'One registered file',
        params: idParamsSchema,
        response: { 200: fileSchema, ...errors },
      },
    },
    async (request) => files.get(await actorOf(request), request.params.id),
  );

  app.get(
    '/files/:id/content',
    {
      schema: {
        ...common,
        summary: 'The file’s bytes (supports `Range: bytes=…`)',
        params: idParamsSchema,
      },
    },
    async (request, reply) => {
      const file = await files.access(await actorOf(request), request.params.id);
      const name = file.path.split('/').pop() ?? 'file';
      reply
        .header('accept-ranges', 'bytes')
        .header('content-type', file.content_type)
        .header('content-disposition', `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`)
        .header('etag', `"${file.sha256}"`)
        .header('x-content-type-options', 'nosniff');
      const rangeHeader = request.headers.range;
      if (rangeHeader === undefined) {
        reply.header('content-length', file.size);
        return reply.send(await files.open(file));
      }
      const range = parseRange(rangeHeader, file.size);
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${file.size}`);
        throw new DomainError('range_not_satisfiable', `the file has ${file.size} bytes`);
      }
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
        .header('content-length', range.end - range.start + 1)
        .send(await files.open(file, range));
    },
  );
}
