import { capabilitiesSchema } from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.js';
import { describeCapabilities } from './capabilities.js';

export function capabilitiesRoutes(config: Config): FastifyPluginAsyncZod {
  // Configuration does not change while the process runs: validate and serialize the answer
  // once; each request then sends the same bytes.
  const capabilities = capabilitiesSchema.parse(describeCapabilities(config));
  const serialized = JSON.stringify(capabilities);
  return async (app) => {
    app.get(
      '/utils/capabilities',
      {
        config: { access: 'open' },
        serializerCompiler: () => () => serialized,
        schema: {
          tags: ['utils'],
          summary: 'Features and sign-in options of this instance (no token needed)',
          response: { 200: capabilitiesSchema },
        },
      },
      async () => capabilities,
    );
  };
}
