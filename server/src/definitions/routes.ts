import { idParamsSchema, importAnswerSchema, problemSchema, projectDefinitionSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import { acceptYamlBodies } from '../http/yaml-body.js';
import { authorize } from '../policy/policy.js';
import { MAX_DEFINITION_BYTES } from './parser.js';
import type { ProjectDefinitions } from './service.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const definitionJsonSchema = z.toJSONSchema(projectDefinitionSchema, { io: 'input', target: 'draft-2020-12' });

/** project.yaml: import, validate, export, and its JSON Schema. */
export function definitionRoutes(
  { definitions }: { definitions: ProjectDefinitions },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  return async (app) => {
    acceptYamlBodies(app, MAX_DEFINITION_BYTES);
    const importBody = z.strictObject({ yaml: z.string().max(MAX_DEFINITION_BYTES) });
    const common = { tags: ['projects'], security: [{ bearerAuth: [] }] };

    app.post(
      '/projects/import',
      {
        bodyLimit: MAX_DEFINITION_BYTES + 1024,
        schema: {
          ...common,
          summary: 'Create or update a project from a project.yaml',
          description:
            'Send the YAML as `application/yaml` (or `text/yaml`), or JSON `{"yaml": "…"}`. 201 when created, 200 when updated. Errors name the path, line and column.',
          body: importBody,
          response: { 200: importAnswerSchema, 201: importAnswerSchema, 409: problemSchema, ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        authorize(actor, 'resource.create');
        const answer = await definitions.import(actor, request.body.yaml);
        return reply.code(answer.created ? 201 : 200).send(answer);
      },
    );

    app.post(
      '/projects/validate',
      {
        bodyLimit: MAX_DEFINITION_BYTES + 1024,
        schema: {
          ...common,
          summary: 'Check a project.yaml without importing it',
          body: importBody,
          response: { 200: z.object({ valid: z.literal(true), name: z.string() }), ...errors },
        },
      },
      async (request) => {
        authorize(await actorOf(request), 'resource.create');
        return { valid: true as const, name: definitions.validate(request.body.yaml).name };
      },
    );

    app.get(
      '/projects/:id/yaml',
      // No response schema: the body is YAML text, not JSON to serialize.
      { schema: { ...common, summary: 'The project as a project.yaml', params: idParamsSchema } },
      async (request, reply) =>
        reply
          .type('application/yaml; charset=utf-8')
          .send(await definitions.export(await actorOf(request), request.params.id)),
    );

    app.get(
      '/projects/schema',
      {
        config: { access: 'open' },
        schema: { tags: ['projects'], summary: 'JSON Schema of project.yaml (no token needed)' },
      },
      async (_request, reply) => reply.type('application/schema+json').send(definitionJsonSchema),
    );
  };
}
