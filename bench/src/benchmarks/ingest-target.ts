/**
 * Child process of the `ingest` and `web` benchmarks.
 *
 * - `ingest-target.js service <data dir> <upload max bytes> [web root]` runs the real server
 *   (embedded SQLite and local storage in the data dir; the web app from `web root` when given) and
 *   reports `{ type: 'ready', url }`; it closes the server when the parent disconnects (or dies).
 * - `ingest-target.js first-page <data dir> <runs>` opens the server's DuckDB over a data dir the
 *   server has left, and times the two statements of a preview's first page (25 rows, then the row
 *   count) straight over the Parquet files of the one table in it; reports `{ type: 'first-page', ... }`.
 * - `ingest-target.js baseline <data dir> <csv> <parquet> <aggregate runs>` opens the server's
 *   DuckDB (same settings: 2 threads, UTC, spill directory in the data dir), times DuckDB's own
 *   CSV-to-Parquet `COPY` of the file and a group-by over the Parquet it wrote, reports
 *   `{ type: 'baseline', ... }` and exits.
 */
import type { TargetMessage } from '../lib/child-target.js';
import { serviceEnvironment } from './api-fixture.js';

export interface BaselineReport {
  type: 'baseline';
  copySeconds: number;
  /** CPU-seconds of the whole process (every DuckDB thread) during the COPY. */
  copyCpuSeconds: number;
  rows: number;
  parquetBytes: number;
  /** Peak resident set of this process up to the end of the COPY (bytes). */
  copyPeakRssBytes: number;
  /** Latencies of the group-by run straight in DuckDB over the Parquet file (ms), warm-ups excluded. */
  aggregateMs: number[];
}

/** DuckDB alone reading a table's first page, as the preview does (`web` benchmark). */
export interface FirstPageReport {
  type: 'first-page';
  /** Milliseconds of each run (LIMIT 25, then count(*)), the first (cold) one included. */
  ms: number[];
  files: number;
  rows: number;
}

export type IngestTargetMessage = TargetMessage | BaselineReport | FirstPageReport;

/** Peak resident set so far, from the kernel (bytes). */
function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

async function runBaseline(
  dataDir: string,
  csv: string,
  parquet: string,
  aggregateRuns: number,
): Promise<BaselineReport> {
  const { createContext, loadConfig } = await import('@service/server');
  const { stat } = await import('node:fs/promises');
  const context = await createContext(loadConfig(serviceEnvironment(dataDir), dataDir));
  try {
    return await context.duckdb.withConnection(async (connection) => {
      const cpuBefore = cpuSeconds();
      const started = performance.now();
      await connection.run(`COPY (SELECT * FROM read_csv(${quote(csv)})) TO ${quote(parquet)} (FORMAT parquet)`);
      const copySeconds = (performance.now() - started) / 1000;
      const copyCpuSeconds = cpuSeconds() - cpuBefore;
      const copyPeakRssBytes = peakRssBytes();
      const [counted] = await connection.query(
        `SELECT count(*)::BIGINT::VARCHAR AS n FROM read_parquet(${quote(parquet)})`,
      );
      const aggregate =
        `SELECT "group", count("value") AS n, sum("value") AS total, avg("value") AS mean ` +
        `FROM read_parquet(${quote(parquet)}) GROUP BY 1 ORDER BY 1`;
      const aggregateMs: number[] = [];
      // Two warm-ups before timed runs; none at all when no run is asked for (a repeated baseline).
      for (let run = 0; run < (aggregateRuns === 0 ? 0 : aggregateRuns + 2); run++) {
        const begun = performance.now();
        await connection.query(aggregate);
        if (run >= 2) aggregateMs.push(performance.now() - begun);
      }
      return {
        type: 'baseline' as const,
        copySeconds,
        copyCpuSeconds,
        rows: Number(counted?.n ?? 0),
        parquetBytes: (await stat(parquet)).size,
        copyPeakRssBytes,
        aggregateMs,
      };
    });
  } finally {
    await context.close();
  }
}

/** The table's data files: every Parquet file under the data dir but the Delta log's checkpoints. */
async function parquetFiles(dataDir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const { join, sep } = await import('node:path');
  const entries = await readdir(dataDir, { recursive: true });
  return entries
    .filter((entry) => entry.endsWith('.parquet') && !entry.split(sep).includes('_delta_log'))
    .map((entry) => join(dataDir, entry))
    .sort();
}

async function runFirstPage(dataDir: string, runs: number): Promise<FirstPageReport> {
  const { createContext, loadConfig } = await import('@service/server');
  const files = await parquetFiles(dataDir);
  if (files.length === 0) throw new Error(`no Parquet file under ${dataDir}`);
  const from = `read_parquet([${files.map(quote).join(', ')}])`;
  const context = await createContext(loadConfig(serviceEnvironment(dataDir), dataDir));
  try {
    return await context.duckdb.withConnection(async (connection) => {
      const ms: number[] = [];
      let rows = 0;
      for (let run = 0; run < runs; run++) {
        const started = performance.now();
        const page = await connection.query(`SELECT * FROM ${from} LIMIT 25 OFFSET 0`);
        const [counted] = await connection.query(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${from}`);
        ms.push(performance.now() - started);
        if (page.length !== 25) throw new Error(`first page: ${page.length} rows, not 25`);
        rows = Number(counted?.n ?? 0);
      }
      return { type: 'first-page' as const, ms, files: files.length, rows };
    });
  } finally {
    await context.close();
  }
}

interface Closable {
  url: string;
  close(): Promise<void>;
}

async function startService(dataDir: string, uploadMaxBytes: string, webRoot: string | null): Promise<Closable> {
  const { loadConfig, startServer } = await import('@service/server');
  const environment = { ...serviceEnvironment(dataDir), SERVICE_UPLOAD_MAX_BYTES: uploadMaxBytes };
  const server = await startServer(loadConfig(environment, dataDir), { webRoot });
  return { url: server.url, close: () => server.close() };
}

function send(message: IngestTargetMessage): void {
  process.send?.(message);
}

function failed(error: unknown): void {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.disconnect?.();
  process.exitCode = 1;
}

async function main(): Promise<void> {
  const [kind, dataDir, ...rest] = process.argv.slice(2);
  if (kind === 'baseline' && dataDir && rest.length === 3) {
    const [csv = '', parquet = '', runs = ''] = rest;
    try {
      send(await runBaseline(dataDir, csv, parquet, Number(runs)));
      process.disconnect?.();
    } catch (error) {
      failed(error);
    }
    return;
  }
  if (kind === 'first-page' && dataDir && rest.length === 1) {
    try {
      send(await runFirstPage(dataDir, Number(rest[0])));
      process.disconnect?.();
    } catch (error) {
      failed(error);
    }
    return;
  }
  if (kind !== 'service' || !dataDir || rest.length < 1 || rest.length > 2) {
    failed(
      new Error(
        'usage: ingest-target.js service <data dir> <upload max bytes> [web root] | ' +
          'baseline <data dir> <csv> <parquet> <aggregate runs> | first-page <data dir> <runs> ' +
          `(got "${process.argv.slice(2).join(' ')}")`,
      ),
    );
    return;
  }
  let target: Closable;
  try {
    target = await startService(dataDir, rest[0] ?? '', rest[1] ?? null);
  } catch (error) {
    failed(error);
    return;
  }
  process.once('disconnect', () => {
    target.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        process.stderr.write(`ingest-target service: close failed: ${String(error)}\n`);
        process.exitCode = 1;
      },
    );
  });
  send({ type: 'ready', url: target.url });
}

await main();
