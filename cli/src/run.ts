import { ConfigErrors } from '@service/server/basics';
import { CommanderError } from 'commander';

/** Exit codes: 1 for a failure, 2 for bad configuration or usage. */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (error instanceof CommanderError) {
      // Commander already printed the message (or the help text).
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    if (error instanceof ConfigErrors) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`service: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
