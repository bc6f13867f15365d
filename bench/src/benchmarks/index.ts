/**
 * The benchmarks `main.js` knows. Each one is loaded only when run, so listing stays instant and a
 * benchmark's dependencies (servers, databases) are only touched when it is asked for.
 * To add one, write `benchmarks/<name>.ts` exporting a `run(args)` function and list it here.
 */
export interface Benchmark {
  name: string;
  /** One line for the listing. */
  summary: string;
  /** Prints its report; throws when the measurement itself is invalid (errors, non-2xx answers). */
  run(args: string[]): Promise<void>;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'api',
    summary: 'HTTP throughput and latency of public and authenticated API routes vs. a bare Fastify baseline',
    run: async (args) => (await import('./api.js')).run(args),
  },
  {
    name: 'ingest',
    summary: 'upsert of a generated 10 M-row CSV vs. DuckDB COPY to Parquet, peak server memory, aggregate latency',
    run: async (args) => (await import('./ingest.js')).run(args),
  },
];

export function findBenchmark(name: string): Benchmark | undefined {
  return benchmarks.find((benchmark) => benchmark.name === name);
}
