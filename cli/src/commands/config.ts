import { describeConfig, loadConfig } from '@service/server/basics';
import { Command } from 'commander';

export function configCommand(): Command {
  const config = new Command('config').description('Inspect the configuration.');
  config
    .command('check')
    .description('Validate the SERVICE_* settings and print the effective configuration, secrets redacted.')
    .action(() => {
      const effective = loadConfig();
      process.stdout.write(`${JSON.stringify(describeConfig(effective), null, 2)}\n`);
      for (const name of effective.unknownSettings)
        process.stderr.write(`warning: unknown setting ${name} is ignored\n`);
      process.stderr.write('Configuration is valid.\n');
    });
  return config;
}
