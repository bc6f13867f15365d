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
    name: 'dashboard',
    summary:
      'dashboard of 11 components on 12 M rows: POST /data cold, warm and on 300 filter changes vs. DuckDB alone, browser redraw, peak RSS; one of 6 tabs x 15: POST /data of a tab, tab switches in the browser',
    run: async (args) => (await import('./dashboard.js')).run(args),
  },
  {
    name: 'export',
    summary:
      'self-contained page of a histogram over 10 M rows: size (gzip), server time cold/warm, drawn in Chromium; spec vs. the data route (ratio)',
    run: async (args) => (await import('./export.js')).run(args),
  },
  {
    name: 'field-charts',
    summary:
      'Manhattan of a 10 M-variant GWAS and UpSet of 20 sets over 1 M items: first answer and 50 filter changes vs. DuckDB alone, browser redraw of every new kind',
    run: async (args) => (await import('./field-charts.js')).run(args),
  },
  {
    name: 'gallery',
    summary:
      'image gallery over 10,000 images in Chromium: first thumbnail painted vs. a static page of the same thumbnails, paging, no full image fetched',
    run: async (args) => (await import('./gallery.js')).run(args),
  },
  {
    name: 'ingest',
    summary: 'upsert of a generated 10 M-row CSV vs. DuckDB COPY to Parquet, peak server memory, aggregate latency',
    run: async (args) => (await import('./ingest.js')).run(args),
  },
  {
    name: 'ingest-folder',
    summary:
      'service ingest --template of the ampliseq results: each step to a dashboard drawn in Chromium, peak RSS, then an unchanged re-run (time, table versions)',
    run: async (args) => (await import('./ingest-folder.js')).run(args),
  },
  {
    name: 'jobs',
    summary:
      'job queue on PostgreSQL: enqueue-to-start latency and throughput with 1 and 4 worker processes vs. bare SQL',
    run: async (args) => (await import('./jobs.js')).run(args),
  },
  {
    name: 'live',
    summary:
      '1,000 event streams on 2 API replicas (PostgreSQL): commit-to-every-stream delivery p50/p95/max and memory per 1,000 streams; 100 schedules due at once on 2 workers, each started once',
    run: async (args) => (await import('./live.js')).run(args),
  },
  {
    name: 'login-timing',
    summary: 'sign-in with an unknown email vs. a known one with a wrong password: the same argon2 work (ratio)',
    run: async (args) => (await import('./login-timing.js')).run(args),
  },
  {
    name: 'multiqc',
    summary:
      'MultiQC report of 2,000 samples: ingestion, POST /data of 14 plots cold/warm and on 100 sample filters vs. DuckDB alone, peak RSS',
    run: async (args) => (await import('./multiqc.js')).run(args),
  },
  {
    name: 'preview',
    summary: "warm preview request over HTTP vs. DuckDB alone running the preview's statements (ratio)",
    run: async (args) => (await import('./preview.js')).run(args),
  },
  {
    name: 'scale',
    summary:
      'on PostgreSQL: authenticated-read req/s with 1 and 2 API replicas behind a proxy, jobs/s with 1, 2 and 4 workers, with CPU per process',
    run: async (args) => (await import('./scale.js')).run(args),
  },
  {
    name: 'web',
    summary: 'web app in Chromium: project page LCP, first preview rows of a 10 M-row table, initial JS size',
    run: async (args) => (await import('./web.js')).run(args),
  },
];

export function findBenchmark(name: string): Benchmark | undefined {
  return benchmarks.find((benchmark) => benchmark.name === name);
}
