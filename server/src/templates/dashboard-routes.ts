import {
  dashboardSchema,
  generatedVersionSchema,
  idParamsSchema,
  problemSchema,
  templateDashboardsAnswerSchema,
  templateDashboardsRequestSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { TemplateDashboardsService } from './dashboards.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema, 412: problemSchema };
const common = { security: [{ bearerAuth: [] }] };

/**
 * A template's dashboards applied to a project, and the generated version a dashboard a person
 * edited is offered (docs/templates.md "Re-running").
 */
export function templateDashboardRoutes(
  { templateDashboards }: { templateDashboards: TemplateDashboardsService },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/projects/:id/template-dashboards',
      {
        schema: {
          ...common,
          tags: ['templates'],
          summary: "Apply a template's rendered dashboards to the project (editors): made, updated, or offered",
          description:
            'Each dashboard is found again by its pipeline and generated title. An unedited one takes the new content as a new revision; one a person edited since it was generated is never overwritten: the new content is offered (GET /dashboards/{id}/generated). Components the project cannot answer are left out and listed.',
          params: idParamsSchema,
          body: templateDashboardsRequestSchema,
          response: { 200: templateDashboardsAnswerSchema, ...errors },
        },
      },
      async (request) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        return templateDashboards.apply(actor, request.params.id, request.body);
      },
    );

    app.get(
      '/dashboards/:id/generated',
      {
        schema: {
          ...common,
          tags: ['dashboards'],
          summary:
            'Whether a template generated the dashboard, whether it was edited since, and the version on offer (editors)',
          params: idParamsSchema,
          response: { 200: generatedVersionSchema, ...errors },
        },
      },
      async (request) => templateDashboards.generated(await actorOf(request), request.params.id),
    );

    app.post(
      '/dashboards/:id/generated/apply',
      {
        schema: {
          ...common,
          tags: ['dashboards'],
          summary: 'Save the generated version on offer as the newest revision (editors); 404 when none is',
          params: idParamsSchema,
          response: { 200: dashboardSchema, ...errors },
        },
      },
      async (request, reply) => {
        const { dashboard, etag } = await templateDashboards.applyOffer(await actorOf(request), request.params.id);
        return reply.header('etag', etag).send(dashboard);
      },
    );

    app.delete(
      '/dashboards/:id/generated/offer',
      {
        schema: {
          ...common,
          tags: ['dashboards'],
          summary: 'Dismiss the generated version on offer, keeping the dashboard as it is (editors)',
          params: idParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await templateDashboards.dismissOffer(await actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
