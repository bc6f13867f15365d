/**
 * What the CLI's client commands (`ingest`, `project`, `dashboard`, `config`) and its start-up
 * need from the server package, without the server itself: importing `@service/server` loads
 * Fastify, DuckDB, both database drivers and the S3 client, about a second on two cores, which
 * every `service ingest` and `service --help` would pay for nothing (docs/performance.md
 * "ingest-folder"). Commands that run the server import the whole package when they run.
 */
export { ConfigErrors, loadConfig } from './config/config.js';
export { describeConfig } from './config/describe.js';
export { validateProjectDefinition } from './definitions/rules.js';
export { DomainError } from './errors.js';
export { API_PREFIX } from './http/prefix.js';
export { serviceVersion } from './version.js';
