import type { FastifyInstance } from 'fastify';

export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * Lets the routes of a plugin take a YAML body as text: it arrives as `{yaml: "…"}`, the same
 * body a JSON client sends, so one schema validates both.
 */
export function acceptYamlBodies(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(YAML_MEDIA_TYPES, { parseAs: 'string', bodyLimit }, (_request, body, done) =>
    done(null, { yaml: body }),
  );
}
