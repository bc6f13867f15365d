import { config } from 'zod';

/**
 * The pages' Content-Security-Policy forbids eval (server/src/http/page-policy.ts). zod would try
 * `new Function` once, as the shared schemas are built, to compile its parsers, and the browser
 * reports the refusal as a policy violation; jitless, it does not try. Imported first by main.tsx,
 * before any module that builds a schema.
 */
config({ jitless: true });
