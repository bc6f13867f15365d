import {
  dashboardImportQuerySchema,
  dashboardSchema,
  dashboardYamlSchema,
  idParamsSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { acceptYamlBodies } from '../http/yaml-body.js';
import { authorize } from '../policy/policy.js';
import { type DashboardFiles, MAX_DASHBOARD_YAML_BYTES } from './yaml-files.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const dashboardJsonSchema = z.toJSONSchema(dashboardYamlSchema, { io: 'input', target: 'draft-2020-12' });

/** Dashboards as YAML: export, import, and the file's JSON Schema (docs/dashboards.md). */
export function dashboardFileRoutes(files: DashboardFiles, actorOf: Authenticator): FastifyPluginAsyncZod {
  return async (app) => {
    acceptYamlBodies(app, MAX_DASHBOARD_YAML_BYTES);
    const common = { tags: ['dashboards'], security: [{ bearerAuth: [] }] };

    app.get(
      '/dashboards/:id/yaml',
      // No response schema: the body is YAML text, not JSON to serialize.
      {
        schema: {
          ...common,
          summary: 'The dashboard as a dashboard.yaml (readers); `?revision=` a past revision (editors)',
          params: idParamsSchema,
          querystring: z.strictObject({ revision: z.coerce.number().int().min(1).optional() }),
        },
      },
      async (request, reply) =>
        reply
          .type('application/yaml; charset=utf-8')
          .send(await files.export(await actorOf(request), request.params.id, request.query.revision)),
    );

    app.post(
      '/dashboards/import',
      {
        bodyLimit: MAX_DASHBOARD_YAML_BYTES + 1024,
        schema: {
          ...common,
          summary: 'Create a dashboard from a dashboard.yaml (editors of its project)',
          description:
            'Send the YAML as `application/yaml` (or `text/yaml`), or JSON `{"yaml": "…"}`. The project is the `project_id` query parameter, else the file\'s `project_id`. 201 with the new dashboard, owned by the caller. Errors name the path, line and column.',
          querystring: dashboardImportQuerySchema,
          body: z.strictObject({ yaml: z.string().max(MAX_DASHBOARD_YAML_BYTES) }),
          response: { 201: dashboardSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        const { dashboard, etag } = await files.import(actor, request.body.yaml, request.query.project_id);
        return reply.code(201).header('etag', etag).send(dashboard);
      },
    );

    app.get(
      '/dashboards/schema',
      {
        config: { access: 'open' },
        schema: { tags: ['dashboards'], summary: 'JSON Schema of dashboard.yaml (no token needed)' },
      },
      async (_request, reply) => reply.type('application/schema+json').send(dashboardJsonSchema),
    );
  };
}
