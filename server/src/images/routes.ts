import {
  collectionImageParamsSchema,
  exportImageParamsSchema,
  imageParamsSchema,
  imageQuerySchema,
  problemSchema,
} from '@service/common';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { ImagesService, ServedImage } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const image = z.unknown().describe('the image (size=full: as stored; size=thumbnail: WebP)');
const SIZES =
  '`size=thumbnail` is a WebP of at most 320 pixels a side, made on ingestion; `size=full` (default) the file as ' +
  'it is, served only when its content is an image (400 otherwise) of at most 100,000,000 pixels (400 past it). ' +
  '`image_id` is the `image_id` column of the collection (a path is a 400). SVG is served under ' +
  "`Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox`: it runs nothing.";

/**
 * The image routes (docs/dashboards.md "Images"): a gallery's images for the dashboard's readers,
 * an export's for embed tokens, a collection's for its readers.
 */
export function imagesRoutes({ images }: { images: ImagesService }, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/dashboards/:id/components/:component_id/images/:image_id',
      {
        schema: {
          tags: ['dashboards'],
          security: [{ bearerAuth: [] }],
          summary: "An image of a gallery component's collection (readers of the dashboard)",
          description: SIZES,
          params: imageParamsSchema,
          querystring: imageQuerySchema.omit({ token: true }),
          response: { 200: image, ...errors },
        },
      },
      async (request, reply) => {
        const { id, component_id, image_id } = request.params;
        const query = { ...request.query, token: undefined };
        return send(reply, await images.ofDashboard(await actorOf(request), id, component_id, image_id, query));
      },
    );

    app.get(
      '/export/components/:dashboard_id/:component_id/images/:image_id',
      {
        // Open: an embed token in the query string may be the caller's only right.
        config: { access: 'open' },
        schema: {
          tags: ['export'],
          security: [{ bearerAuth: [] }, {}],
          summary: "An image of an exported gallery (readers, public dashboards, the gallery's embed tokens)",
          description: `${SIZES} \`token\`: an embed token for the dashboard or this component.`,
          params: exportImageParamsSchema,
          querystring: imageQuerySchema,
          response: { 200: image, ...errors },
        },
      },
      async (request, reply) => {
        const { dashboard_id, component_id, image_id } = request.params;
        if (request.query.token !== undefined) reply.header('access-control-allow-origin', '*');
        const actor = () => actorOf(request);
        return send(reply, await images.ofExport(actor, dashboard_id, component_id, image_id, request.query));
      },
    );

    app.get(
      '/datacollections/:id/images/:image_id',
      {
        schema: {
          tags: ['data collections'],
          security: [{ bearerAuth: [] }],
          summary: "An image of an image collection (readers of the collection's project)",
          description: `${SIZES} Another type of collection is a 404.`,
          params: collectionImageParamsSchema,
          querystring: imageQuerySchema.omit({ token: true }),
          response: { 200: image, ...errors },
        },
      },
      async (request, reply) => {
        const { id, image_id } = request.params;
        const query = { ...request.query, token: undefined };
        return send(reply, await images.ofCollection(await actorOf(request), id, image_id, query));
      },
    );
  };
}

/** The bytes with headers that keep them an image: no sniffing, no script (an SVG's), private caching. */
function send(reply: FastifyReply, served: ServedImage) {
  const filename = served.filename.replace(/[^\w.-]/g, '_');
  return reply
    .type(served.contentType)
    .header('content-length', served.size)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    .header('content-disposition', `inline; filename="${filename}"`)
    .header('cache-control', 'private, max-age=3600')
    .send(served.stream);
}
