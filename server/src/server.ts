import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import { type AppContext, createContext } from './context.js';
import { type AppOptions, buildApp } from './http/app.js';
import { WorkerPool } from './jobs/worker-pool.js';
import { startPeriodicCleanup } from './maintenance/periodic-cleanup.js';
import { tuneV8ForServing } from './v8-flags.js';

export interface RunningServer {
  app: FastifyInstance;
  context: AppContext;
  /** The address actually listened on (the port may have been chosen by the OS). */
  url: string;
  /** Stops taking connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, options: AppOptions = {}): Promise<RunningServer> {
  tuneV8ForServing();
  const context = await createContext(config);
  let app: FastifyInstance;
  try {
    app = await buildApp(context, options);
    for (const name of config.unknownSettings) app.log.warn({ setting: name }, 'unknown setting ignored (a typo?)');
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await context.close();
    throw error;
  }
  const stopCleanup = startPeriodicCleanup(context.temporaryUsers, app.log);
  const workers = createWorkerPool(context, app.log, config.jobs.enabled ? config.jobs.workers : 0);
  await workers.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    app,
    context,
    url: `http://${host}:${port}`,
    async close() {
      stopCleanup();
      await workers.stop();
      await app.close();
      await context.close();
    },
  };
}

/** The in-process workers (SERVICE_JOBS_WORKERS; 0 = an API-only replica). */
export function createWorkerPool(context: AppContext, log: FastifyBaseLogger, concurrency: number): WorkerPool {
  return new WorkerPool(context.jobs, context.jobHandlers, context.config.database, log, concurrency);
}
