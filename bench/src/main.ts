/**
 * `npm run bench -- <name>`: runs one benchmark; without a name (or with `--help`) lists them.
 * Exit codes: 0 done (a missed target is reported, not failed), 1 the benchmark failed, 2 usage.
 */
import { benchmarks, findBenchmark } from './benchmarks/index.js';
import { UsageError } from './lib/usage-error.js';

function usage(): string {
  const width = Math.max(...benchmarks.map((benchmark) => benchmark.name.length));
  const lines = benchmarks.map((benchmark) => `  ${benchmark.name.padEnd(width)}  ${benchmark.summary}`);
  return ['Usage: npm run bench -- <name>', '', 'Benchmarks:', ...lines, ''].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  const benchmark = findBenchmark(name);
  if (!benchmark) {
    const known = benchmarks.map((entry) => entry.name).join(', ');
    process.stderr.write(`bench: unknown benchmark "${name}" (available: ${known}; see --help)\n`);
    return 2;
  }
  try {
    await benchmark.run(rest);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      process.stderr.write(`bench ${benchmark.name}: ${message}\n`);
      return 2;
    }
    process.stderr.write(`bench ${benchmark.name}: FAILED: ${message}\n`);
    return 1;
  }
}

// Exit explicitly: a benchmark that failed half-way may leave a socket or child behind, and the
// run must end anyway (children close their servers when this process goes away).
process.exit(await main(process.argv.slice(2)));
