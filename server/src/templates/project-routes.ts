import { problemSchema, templateProjectAnswerSchema, templateProjectRequestSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Authenticator } from '../http/authentication.js';
import { authorize } from '../policy/policy.js';
import type { TemplateProjects } from './projects.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema, 409: problemSchema };

/** `POST /projects/from-template` (docs/templates.md "From the web app"). */
export function templateProjectRoutes(
  { templateProjects }: { templateProjects: TemplateProjects },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/projects/from-template',
      {
        schema: {
          tags: ['templates'],
          security: [{ bearerAuth: [] }],
          summary: 'Make a project of a folder on the server with a template, and ingest it (dry_run: only say what)',
          body: templateProjectRequestSchema,
          response: { 200: templateProjectAnswerSchema, 201: templateProjectAnswerSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        const answer = await templateProjects.make(actor, request.body);
        return reply.code(answer.project_id === null ? 200 : 201).send(answer);
      },
    );
  };
}
