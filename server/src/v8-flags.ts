import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring in the serving process, before the app is built.
 *
 * Building the Fastify app (routes, schemas, plugins) keeps many objects alive, and V8 then
 * decides to allocate some of Node's and Fastify's per-request objects straight into the old
 * generation, where they die. About half of the server processes started that way: 10-14% of
 * their CPU went to the scavenger and to marking, and they needed 106-130 µs of CPU per small
 * request. Measured on the real server, eight interleaved starts with and without this flag: no
 * process in that state with it, and the median CPU per request fell from 112 to 88 µs
 * (docs/performance.md, `api`). The server's bulk data work runs in DuckDB, outside V8's heap, so
 * what pretenuring is for (many long-lived JavaScript objects) is not what this process does.
 *
 * The flag is read at each garbage collection, so setting it once the process runs takes effect.
 */
export function tuneV8ForServing(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
