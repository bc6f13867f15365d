import { loadConfig } from '@service/server/basics';
import { Command } from 'commander';
import pino from 'pino';

export function workerCommand(): Command {
  return new Command('worker')
    .description('Run background-job workers without the HTTP API (scale them separately from API replicas).')
    .option('-c, --concurrency <n>', 'jobs to run at once (default: SERVICE_JOBS_WORKERS, at least 1)')
    .addHelpText(
      'after',
      '\nNeeds SERVICE_JOBS_ENABLED (the default). Stops on SIGTERM or SIGINT; running jobs are handed back to the queue.',
    )
    .action(async (options: { concurrency?: string }) => {
      const config = loadConfig();
      if (!config.jobs.enabled)
        throw new Error('jobs are disabled (SERVICE_JOBS_ENABLED=false); there is nothing to work on');
      const concurrency =
        options.concurrency === undefined ? Math.max(1, config.jobs.workers) : Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new Error('--concurrency must be an integer from 1 to 64');
      const { createContext, createWorkerPool, startPeriodicCleanup, startSchedules } = await import('@service/server');
      const context = await createContext(config);
      const log = pino({ level: config.logLevel });
      const pool = createWorkerPool(context, log, concurrency);
      await pool.start();
      // Workers cache uploads too: drop copies of what was deleted (the API replicas remove users).
      const stopCleanup = startPeriodicCleanup(context, log, { temporaryUsers: false });
      // Workers start the ingestions that schedules and watches make due (each once, whoever looks).
      const stopSchedules = startSchedules(context, log);
      const stop = () => {
        stopCleanup();
        stopSchedules();
        pool
          .stop()
          .then(() => context.close())
          .then(
            () => {
              process.exitCode = 0;
            },
            (error: unknown) => {
              process.stderr.write(`service: worker shutdown failed: ${String(error)}\n`);
              process.exitCode = 1;
            },
          );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      // Only now: whoever waits for this line may signal the process at once.
      process.stderr.write(
        `Worker running ${concurrency} job${concurrency === 1 ? '' : 's'} at a time; stop with Ctrl-C.\n`,
      );
    });
}
