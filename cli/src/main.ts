#!/usr/bin/env node
import { serviceVersion } from '@service/server/basics';
import { Command } from 'commander';
import { configCommand } from './commands/config.js';
import { dashboardCommand } from './commands/dashboard.js';
import { ingestCommand } from './commands/ingest.js';
import { migrateCommand } from './commands/migrate.js';
import { projectCommand } from './commands/project.js';
import { serveCommand } from './commands/serve.js';
import { userCommand } from './commands/user.js';
import { workerCommand } from './commands/worker.js';
import { runMain } from './run.js';

const program = new Command('service')
  .description(
    'Data-analytics platform: API server, workers and administration.\nSettings come from SERVICE_* environment variables (see docs/configuration.md).',
  )
  .version(serviceVersion, '-V, --version', 'print the version')
  .showHelpAfterError('(run with --help for usage)')
  .addCommand(serveCommand())
  .addCommand(migrateCommand())
  .addCommand(configCommand())
  .addCommand(userCommand())
  .addCommand(projectCommand())
  .addCommand(dashboardCommand())
  .addCommand(workerCommand())
  .addCommand(ingestCommand());

// Usage mistakes exit with 2 (documented), failures of the work itself with 1.
const overrideExits = (command: Command): void => {
  command.exitOverride();
  for (const sub of command.commands) overrideExits(sub);
};
overrideExits(program);

runMain(() => program.parseAsync(process.argv));
