import { API_PREFIX, loadConfig } from '@service/server/basics';
import { Command } from 'commander';

export function serveCommand(): Command {
  return new Command('serve')
    .description('Start the API server (and the web app when it is built).')
    .option('-p, --port <port>', 'port to listen on (overrides SERVICE_PORT)')
    .option('-H, --host <host>', 'address to listen on (overrides SERVICE_HOST)')
    .option('--example-data', 'load the example project (public) the first time', false)
    .addHelpText(
      'after',
      '\nWith no settings it runs on embedded defaults: SQLite and files under ./data, no external service.\nStops gracefully on SIGTERM or SIGINT: in-flight requests finish first.',
    )
    .action(async (options: { port?: string; host?: string; exampleData: boolean }) => {
      const { seedExampleData, startServer } = await import('@service/server');
      const config = loadConfig({
        ...process.env,
        ...(options.port === undefined ? {} : { SERVICE_PORT: options.port }),
        ...(options.host === undefined ? {} : { SERVICE_HOST: options.host }),
      });
      const server = await startServer(config);
      if (options.exampleData && (await seedExampleData(server.context)) === 'created') {
        process.stderr.write('Loaded the example project "Example: Palmer penguins" (public).\n');
      }

      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          process.stderr.write(`Received ${signal} again: exiting now.\n`);
          process.exit(1);
        }
        stopping = true;
        server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
        server.close().then(
          () => {
            process.exitCode = 0;
          },
          (error: unknown) => {
            process.stderr.write(`service: shutdown failed: ${String(error)}\n`);
            process.exitCode = 1;
          },
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      // Only now: whoever waits for this line may signal the process at once.
      process.stderr.write(
        `Service ${config.version} is running at ${config.publicUrl} (listening on ${server.url}; API docs at ${config.publicUrl}${API_PREFIX}/docs)\n`,
      );
    });
}
