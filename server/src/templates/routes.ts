import { problemSchema, summarizeTemplate, templateListSchema, templateSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { TemplateCatalog } from './catalog.js';

const templateJsonSchema = z.toJSONSchema(templateSchema, { io: 'input', target: 'draft-2020-12' });
const errors = { 401: problemSchema, 403: problemSchema, 404: problemSchema };

/**
 * Pipeline templates (docs/templates.md): the list and one template, for signed-in users (any
 * role: a template is no one's data, and applying it needs a project of one's own anyway);
 * the file's JSON Schema for anyone.
 */
export function templatesRoutes(
  catalog: Pick<TemplateCatalog, 'list' | 'get'>,
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    const common = { tags: ['templates'], security: [{ bearerAuth: [] }] };
    app.get(
      '/templates',
      {
        schema: {
          ...common,
          summary: 'The pipeline templates (signed-in users)',
          response: { 200: templateListSchema, ...errors },
        },
      },
      async (request) => {
        authorize(await actorOf(request), 'templates.read');
        return { items: (await catalog.list()).map(summarizeTemplate) };
      },
    );

    app.get(
      '/templates/schema',
      {
        config: { access: 'open' },
        schema: { tags: ['templates'], summary: 'JSON Schema of template.yaml (no token needed)' },
      },
      async (_request, reply) => reply.type('application/schema+json').send(templateJsonSchema),
    );

    app.get(
      '/templates/*',
      {
        schema: {
          ...common,
          summary: 'One template, whole: by id (nf-core/ampliseq/2.16.0) or pipeline (its newest version)',
          params: z.object({ '*': z.string().min(1).max(200) }),
          response: { 200: templateSchema, ...errors },
        },
      },
      async (request) => {
        authorize(await actorOf(request), 'templates.read');
        return catalog.get(request.params['*']);
      },
    );
  };
}
