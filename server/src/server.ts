import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Config, ConfigError, ConfigErrors } from './config/config.js';
import { type AppContext, createContext } from './context.js';
import { type AppOptions, buildApp } from './http/app.js';
import { WorkerPool } from './jobs/worker-pool.js';
import { startPeriodicCleanup } from './maintenance/periodic-cleanup.js';
import { Scheduler, startScheduler } from './schedules/scheduler.js';
import { tuneV8ForServing } from './v8-flags.js';

export interface RunningServer {
  app: FastifyInstance;
  context: AppContext;
  /** The address actually listened on (the port may have been chosen by the OS). */
  url: string;
  /**
   * Drains: answers not ready on `/health` (for SERVICE_SHUTDOWN_DELAY_SECONDS while still
   * serving), then stops taking connections, hands running jobs back to the queue, lets in-flight
   * requests finish (their data work is interrupted after SERVICE_SHUTDOWN_TIMEOUT_SECONDS) and
   * closes the database.
   */
  close(): Promise<void>;
}

export interface ServerOptions extends AppOptions {
  /**
   * The periodic upkeep (expired temporary users and sign-in records, local copies of deleted
   * objects), on by default. In-process test servers turn it off: its first run comes at a random
   * moment after start and would race the tests that check what one upkeep run does.
   */
  periodicCleanup?: boolean;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  tuneV8ForServing();
  const context = await createContext(config);
  let app: FastifyInstance;
  try {
    app = await buildApp(context, options);
    for (const name of config.unknownSettings) app.log.warn({ setting: name }, 'unknown setting ignored (a typo?)');
    await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
      throw listenError(error, config);
    });
  } catch (error) {
    await context.close();
    throw error;
  }
  context.purger.log = app.log;
  const stopCleanup = options.periodicCleanup === false ? () => {} : startPeriodicCleanup(context, app.log);
  const workers = createWorkerPool(context, app.log, config.jobs.enabled ? config.jobs.workers : 0);
  await workers.start();
  // Schedules start jobs: they are looked for where jobs are run.
  const stopSchedules = config.jobs.enabled && config.jobs.workers > 0 ? startSchedules(context, app.log) : () => {};
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    app,
    context,
    url: `http://${host}:${port}`,
    async close() {
      // Unready first, so load balancers stop sending, while requests are still served.
      context.lifecycle.draining = true;
      if (config.shutdownDelaySeconds > 0) {
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
      }
      context.lifecycle.closing = true;
      stopCleanup();
      stopSchedules();
      // Requests in flight may finish within the shutdown timeout; then their DuckDB work is
      // interrupted and they answer 503, so the process exits whatever was running.
      const deadline = setTimeout(() => context.requestWork.stopAll(), config.dataLimits.shutdownTimeoutMs);
      // A connection whose answer ends after the close began (a streamed download) goes idle
      // then, and would be kept alive until its keep-alive timeout: close them as they go idle.
      const idle = setInterval(() => app.server.closeIdleConnections(), 100);
      // Running jobs go back to the queue while the listener closes and requests in flight finish.
      await Promise.all([workers.stop(), app.close()]).finally(() => {
        clearTimeout(deadline);
        clearInterval(idle);
      });
      await context.close();
    },
  };
}

/** Turns the usual reasons `listen` fails into a configuration error naming the variable to fix. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const at = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE')
    return new ConfigErrors([new ConfigError('SERVICE_PORT', `${at} is already in use (got "${config.port}")`)]);
  if (code === 'EACCES')
    return new ConfigErrors([
      new ConfigError('SERVICE_PORT', `listening on ${at} is not permitted (got "${config.port}")`),
    ]);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ConfigErrors([
      new ConfigError('SERVICE_HOST', `is not an address of this machine (got "${config.host}")`),
    ]);
  return error;
}

/** Looks for due schedules and watches every SERVICE_SCHEDULES_TICK_SECONDS (docs/data.md "Schedules and watched folders"). */
export function startSchedules(context: AppContext, log: FastifyBaseLogger): () => void {
  const scheduler = new Scheduler({
    database: context.database,
    ingestion: context.ingestion,
    users: context.users.repository,
    allowedRoots: context.config.ingestion.allowedRoots,
    log,
  });
  return startScheduler(scheduler, log, context.config.jobs.scheduleTickSeconds);
}

/** The in-process workers (SERVICE_JOBS_WORKERS; 0 = an API-only replica). */
export function createWorkerPool(context: AppContext, log: FastifyBaseLogger, concurrency: number): WorkerPool {
  return new WorkerPool(context.jobs, context.jobHandlers, context.config.database, log, concurrency, context.workers);
}
