import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { DestinationStream } from 'pino';
import { alertRoutes } from '../alerts/routes.js';
import { auditRoutes } from '../audit/routes.js';
import { accessRoutes } from '../auth/access-routes.js';
import type { OAuthSignIn } from '../auth/oauth.js';
import { oauthRoutes } from '../auth/oauth-routes.js';
import { personalTokenRoutes } from '../auth/personal-token-routes.js';
import type { PersonalTokens } from '../auth/personal-tokens.js';
import { authRoutes } from '../auth/routes.js';
import type { SessionService } from '../auth/session-service.js';
import { capabilitiesRoutes } from '../capabilities/routes.js';
import type { Config } from '../config/config.js';
import { dashboardDataRoutes } from '../dashboards/data-routes.js';
import { dashboardsRoutes } from '../dashboards/routes.js';
import { dataCollectionQueryRoutes } from '../datacollections/query-routes.js';
import { dataCollectionsRoutes } from '../datacollections/routes.js';
import type { Database } from '../db/database.js';
import { definitionRoutes } from '../definitions/routes.js';
import { deltatablesRoutes } from '../deltatables/routes.js';
import { DomainError } from '../errors.js';
import { exportRoutes } from '../export/routes.js';
import { filesRoutes } from '../files/routes.js';
import { healthRoutes } from '../health/routes.js';
import { imagesRoutes } from '../images/routes.js';
import { ingestionRoutes } from '../ingestion/routes.js';
import { requireInternalKey } from '../internal/key.js';
import { installMetrics, type MetricSources } from '../internal/metrics.js';
import { internalRoutes } from '../internal/routes.js';
import { jobsRoutes } from '../jobs/routes.js';
import { liveRoutes } from '../live/routes.js';
import { multiqcRoutes } from '../multiqc/routes.js';
import { joinRoutes } from '../projects/join-routes.js';
import { projectsRoutes } from '../projects/routes.js';
import { databaseRateLimitStore } from '../rate-limit/database-store.js';
import type { TemplateCatalog } from '../templates/catalog.js';
import { templateDashboardRoutes } from '../templates/dashboard-routes.js';
import { templateProjectRoutes } from '../templates/project-routes.js';
import { templatesRoutes } from '../templates/routes.js';
import { usersRoutes } from '../users/routes.js';
import { workflowsRoutes } from '../workflows/routes.js';
import { requireSession } from './access.js';
import { createAuthenticator } from './authentication.js';
import { clientErrorHandler, frameworkErrors } from './client-errors.js';
import { installErrorHandling, installNotFoundHandling } from './error-handler.js';
import { API_PREFIX } from './prefix.js';
import { requestIdGenerator } from './request-ids.js';
import { installRequestOriginChecks } from './request-origin.js';
import { serveWebApp } from './web-app.js';

const JSON_BODY_LIMIT = 1024 * 1024;
const DOCS_PREFIX = `${API_PREFIX}/docs`;

/**
 * The docs page's Content-Security-Policy: the plugin's (its scripts by hash, no other inline code)
 * without what it does not need (fonts from any https site, the public validator's badge) or what
 * breaks a local http set-up (upgrade-insecure-requests); inline styles allowed (Swagger UI sets
 * them); the API the only thing it connects to; no site may frame it.
 */
function docsContentSecurityPolicy(plugins: string): string {
  const directives = plugins
    .split(';')
    .map((directive) => directive.trim().replace(/ https:| validator\.swagger\.io/g, ''))
    .filter((directive) => directive !== '' && directive !== 'upgrade-insecure-requests')
    .map((directive) => {
      if (directive.startsWith('frame-ancestors')) return "frame-ancestors 'none'";
      // Swagger UI sets inline styles as the web app does; scripts stay hash-only.
      if (directive.startsWith('style-src')) return "style-src 'self' 'unsafe-inline'";
      return directive;
    });
  return [...directives, "connect-src 'self'", "form-action 'self'"].join('; ');
}

export interface AppOptions {
  /** Where logs go (tests capture them); standard output when absent. */
  logStream?: DestinationStream;
  /** The built web app; `web/dist` of this checkout when absent. */
  webRoot?: string | null;
}

/**
 * What the HTTP application uses: its own settings and sign-in, and whatever each route plugin
 * asks for. The composition root (context.ts) builds it; nothing here reaches past it.
 */
export type AppDeps = {
  config: Config;
  database: Database;
  sessions: SessionService;
  /** Personal access tokens: bearer tokens beside the sessions' (docs/auth.md). */
  personalTokens: PersonalTokens;
  /** Single-user mode: the one admin every request acts as. */
  singleUserId: string | null;
  /** Present only when identity-provider sign-in is configured. */
  oauth: OAuthSignIn | null;
} & Parameters<typeof healthRoutes>[0] &
  Parameters<typeof authRoutes>[0] &
  Parameters<typeof accessRoutes>[0] &
  Parameters<typeof usersRoutes>[0] &
  Parameters<typeof auditRoutes>[0] &
  Parameters<typeof projectsRoutes>[0] &
  Parameters<typeof definitionRoutes>[0] &
  Parameters<typeof joinRoutes>[0] &
  Parameters<typeof workflowsRoutes>[0] &
  Parameters<typeof dataCollectionsRoutes>[0] &
  Parameters<typeof dataCollectionQueryRoutes>[0] &
  Parameters<typeof multiqcRoutes>[0] &
  Parameters<typeof imagesRoutes>[0] &
  Parameters<typeof filesRoutes>[0] &
  Parameters<typeof deltatablesRoutes>[0] &
  Parameters<typeof ingestionRoutes>[0] &
  Parameters<typeof dashboardsRoutes>[0] &
  Parameters<typeof dashboardDataRoutes>[0] &
  Parameters<typeof exportRoutes>[0] &
  Parameters<typeof jobsRoutes>[0] &
  Parameters<typeof liveRoutes>[0] &
  Parameters<typeof alertRoutes>[0] &
  Parameters<typeof internalRoutes>[0] &
  MetricSources & { templates: TemplateCatalog } & Parameters<typeof templateProjectRoutes>[0] &
  Parameters<typeof templateDashboardRoutes>[0];

const defaultWebRoot = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** The HTTP application: routes, validation, errors, docs, logs. Does not listen. */
export async function buildApp(context: AppDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = context;
  const app = createFastify(config, options);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installRequestHooks(app, context.lifecycle, config);
  installRequestOriginChecks(app, config);
  // Only JSON is accepted (forms only where a route asks for them: the sign-in); anything else is a
  // 415, not a string to guess at. A cross-site form can then change nothing.
  app.removeContentTypeParser('text/plain');
  await app.register(rateLimit, { global: false, store: databaseRateLimitStore(context.database) as never });

  await installDocs(app, config);

  const internalKey = config.auth.internalKey;
  if (internalKey !== null) {
    // Counting costs every request a hook; without the key nobody could read the counts.
    const metrics = installMetrics(app, context);
    app.get(
      '/metrics',
      { onRequest: requireInternalKey(internalKey), schema: { hide: true } },
      async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
    );
  }

  const actorOf = createAuthenticator(config, context.sessions, context.singleUserId, context.personalTokens);
  await app.register(healthRoutes(context));
  await app.register(apiRoutes(app, context, actorOf), { prefix: API_PREFIX });
  // Beside the API's scope, not in it: the internal key is their only way in, no session needed.
  if (internalKey !== null) await app.register(internalRoutes(context, internalKey), { prefix: API_PREFIX });

  const webRoot = options.webRoot === undefined ? defaultWebRoot : options.webRoot;
  const servesWebApp = webRoot !== null && existsSync(webRoot);
  if (servesWebApp) await serveWebApp(app, webRoot);
  installNotFoundHandling(app, servesWebApp);
  return app;
}

/** The Fastify instance: its logger (none when silent), request ids, body limit, proxies, errors. */
function createFastify(config: AppDeps['config'], options: AppOptions) {
  return Fastify({
    // With logging off, no logger at all: Fastify then skips the per-request child logger and its
    // checks, which cost a small request about a fifth of its time even with every line dropped.
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers["x-provisioning-key"]',
                'req.headers["x-internal-key"]',
                'req.headers.cookie',
              ],
              remove: true,
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    genReqId: requestIdGenerator(),
    // One line per request (below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler,
    frameworkErrors,
    // Requests arriving while the server closes get our own 503 problem with Retry-After (below).
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();
}

type App = ReturnType<typeof createFastify>;

/** Request ids, refusals while closing, no sniffing or caching of API answers, one log line per request. */
function installRequestHooks(app: App, lifecycle: AppDeps['lifecycle'], config: AppDeps['config']): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (lifecycle.closing) {
      // A request on a connection kept alive across the close: the client retries elsewhere.
      reply.header('connection', 'close');
      done(new DomainError('service_unavailable', 'this server is shutting down; retry the request'));
      return;
    }
    // A JSON answer is never to be sniffed into a script or page.
    reply.header('x-content-type-options', 'nosniff');
    // API answers depend on who asks and many carry secrets (tokens, magic-link tickets): no
    // cache, shared or private, keeps them (RFC 6749 §5.1). A route with a cache policy of its own
    // (the public keys) sets it over this one; the docs UI is static and not the API's.
    if (request.url.startsWith(API_PREFIX) && !request.url.startsWith(DOCS_PREFIX))
      reply.header('cache-control', 'no-store');
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // An answer finished while the server closes ends its connection: Fastify closes the idle
    // ones only when the close begins, and a kept-alive one would hold the process until its
    // keep-alive timeout (72 s), past the shutdown deadline.
    if (lifecycle.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // The request line is an info line: below that level the hook would only cost time.
  const logsRequests = ['trace', 'debug', 'info'].includes(config.logLevel);
  if (logsRequests)
    app.addHook('onResponse', (request, reply, done) => {
      // The path only: a query string can carry one-time codes (the OAuth callback's `code`).
      request.log.info(
        {
          method: request.method,
          path: request.url.split('?')[0],
          statusCode: reply.statusCode,
          responseTimeMs: reply.elapsedTime,
        },
        'request completed',
      );
      done();
    });
}

/** The OpenAPI document and its UI. */
async function installDocs(app: App, config: AppDeps['config']): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Service API',
        version: config.version,
        description: 'Projects, data collections, dashboards and jobs. Errors are RFC 9457 problem details.',
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: true,
    transformStaticCSP: docsContentSecurityPolicy,
  });
}

/** Every API route plugin, behind the session check, under the API prefix. */
function apiRoutes(app: App, context: AppDeps, actorOf: ReturnType<typeof createAuthenticator>) {
  const { config } = context;
  return async (api: App) => {
    requireSession(app, api, actorOf);
    api.get('/openapi.json', { config: { access: 'open' }, schema: { hide: true } }, async () => app.swagger());
    await api.register(capabilitiesRoutes(config));
    await api.register(authRoutes(context, actorOf));
    await api.register(accessRoutes(context, actorOf));
    // In single-user mode every bearer token is ignored: personal ones would open nothing.
    if (config.auth.mode !== 'single_user') await api.register(personalTokenRoutes(context, actorOf));
    if (context.oauth !== null) await api.register(oauthRoutes(context, context.oauth));
    // Only auth mode has user management; the other modes have no accounts to administer.
    if (config.auth.mode === 'auth') await api.register(usersRoutes(context, actorOf));
    await api.register(auditRoutes(context, actorOf));
    await api.register(projectsRoutes(context, actorOf));
    await api.register(definitionRoutes(context, actorOf));
    await api.register(joinRoutes(context, actorOf));
    await api.register(workflowsRoutes(context, actorOf));
    await api.register(dataCollectionsRoutes(context, actorOf));
    await api.register(dataCollectionQueryRoutes(context, actorOf));
    await api.register(multiqcRoutes(context, actorOf));
    await api.register(imagesRoutes(context, actorOf));
    await api.register(filesRoutes(context, actorOf));
    await api.register(deltatablesRoutes(context, actorOf));
    await api.register(ingestionRoutes(context, actorOf));
    await api.register(dashboardsRoutes(context, actorOf));
    await api.register(dashboardDataRoutes(context, actorOf));
    await api.register(exportRoutes(context, actorOf, config.auth.mode));
    await api.register(templatesRoutes(context.templates, actorOf));
    await api.register(liveRoutes(context, actorOf));
    await api.register(alertRoutes(context, actorOf));
    await api.register(templateProjectRoutes(context, actorOf));
    await api.register(templateDashboardRoutes(context, actorOf));
    // Without jobs there is no /jobs at all: 404, even without a token.
    if (config.jobs.enabled) await api.register(jobsRoutes(context, actorOf));
  };
}
