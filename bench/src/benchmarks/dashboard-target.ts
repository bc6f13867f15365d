/**
 * Child process of the `dashboard` benchmark; every mode opens the server's DuckDB with the
 * server's own settings (2 threads, UTC, its spill directory).
 *
 * - `dashboard-target.js service <data dir> <upload max bytes> [web root]` runs the real server
 *   (embedded SQLite, local storage) and reports `{type: 'ready', url}`. It notes every statement
 *   the server's DuckDB runs (SQL, parameters, connection) and answers `{type: 'take'}` with those
 *   noted since the last take: the statements one `POST /data` ran, for the baseline to replay.
 *   `{type: 'settle'}` waits until the native copies asked for are built and the tabs computed
 *   ahead are computed, and answers `{type: 'settled', copies}`. The server closes when the parent disconnects.
 * - `dashboard-target.js example <data dir> <web root>` runs the real server with the example
 *   project loaded (as `service serve --example-data` does) and the web app, for screenshots.
 * - `dashboard-target.js generate <scratch dir> <parquet> <rows>` writes the benchmark's table
 *   (dashboard-data.ts) and reports `{type: 'generated', seconds, bytes}`.
 * - `dashboard-target.js baseline <scratch dir>` reports ready, then answers each
 *   `{type: 'replay', statements}` with `{type: 'replayed', ms, each}`: DuckDB alone running those
 *   statements back to back (each connection's in order, one connection after the other), and
 *   each statement's own time.
 */
import { stat } from 'node:fs/promises';
import type { TargetMessage } from '../lib/child-target.js';
import { serviceEnvironment } from './api-fixture.js';
import { generateTableSql } from './dashboard-data.js';

type SqlValue = string | number | boolean | bigint | null;
type Method = 'run' | 'query' | 'queryMatrix' | 'queryLists' | 'describe';
const METHODS: readonly string[] = ['run', 'query', 'queryMatrix', 'queryLists', 'describe'] satisfies Method[];

/** One statement the server ran: which of its connections, which method, the SQL and its parameters. */
export interface RecordedStatement {
  connection: number;
  method: Method;
  sql: string;
  params: SqlValue[] | undefined;
}

export type DashboardTargetMessage =
  | TargetMessage
  | { type: 'statements'; statements: RecordedStatement[] }
  | { type: 'settled'; copies: number }
  | { type: 'generated'; seconds: number; bytes: number }
  | { type: 'replayed'; ms: number; each: number[] };

type Connection = Record<Method, (sql: string, params?: SqlValue[]) => Promise<unknown>> & { close(): void };
interface Engine {
  connect(): Promise<Connection>;
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T>;
}

function send(message: DashboardTargetMessage): void {
  process.send?.(message);
}

function failed(error: unknown): void {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.disconnect?.();
  process.exitCode = 1;
}

async function openContext(dataDir: string) {
  const { createContext, loadConfig } = await import('@service/server');
  return createContext(loadConfig(serviceEnvironment(dataDir), dataDir));
}

/**
 * Makes every connection `engine` hands out note the statements it runs into `into`. Only this
 * benchmark's child does it, after the server has started; the server's code is unchanged.
 */
function recordStatements(engine: Engine, into: RecordedStatement[]): void {
  const connect = engine.connect.bind(engine);
  let connections = 0;
  engine.connect = async () => {
    const connection = await connect();
    const number = ++connections;
    return new Proxy(connection, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || !METHODS.includes(property) || typeof value !== 'function') return value;
        return (sql: string, params?: SqlValue[]) => {
          into.push({ connection: number, method: property as Method, sql, params: params && [...params] });
          return (value as (sql: string, params?: SqlValue[]) => Promise<unknown>).call(target, sql, params);
        };
      },
    });
  };
}

async function serve(dataDir: string, uploadMaxBytes: string, webRoot: string | null): Promise<void> {
  const { loadConfig, startServer } = await import('@service/server');
  const environment = {
    ...serviceEnvironment(dataDir),
    SERVICE_UPLOAD_MAX_BYTES: uploadMaxBytes,
    // 300 changes with their baselines outlast the default 15-minute access token, and the
    // benchmark signs in once: the 12 M-row run of 19:13 lost its last 53 changes to 401s.
    SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: '1440',
    // A loaded host took longer than the default 60 s for the first clustered heatmap of
    // field-charts: the benchmark reports the time it takes, not the limit's refusal.
    SERVICE_DATA_REQUEST_TIMEOUT_SECONDS: '900',
    // ingest-folder runs `service ingest`, which provisions its user with this key.
    ...(process.env.BENCH_PROVISIONING_KEY
      ? { SERVICE_AUTH_PROVISIONING_API_KEY: process.env.BENCH_PROVISIONING_KEY }
      : {}),
  };
  const server = await startServer(loadConfig(environment, dataDir), { webRoot });
  let recorded: RecordedStatement[] = [];
  const into: RecordedStatement[] = [];
  recordStatements(server.context.duckdb as unknown as Engine, into);
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'settle') {
      // The native copies the first request asked for (the filter changes are measured on them),
      // and the other tabs a tab opened unfiltered has computed ahead.
      const { copies, tabWarmer } = server.context;
      void Promise.all([copies.idle(), tabWarmer.idle()]).then(() => send({ type: 'settled', copies: copies.size }));
      return;
    }
    if (message.type !== 'take') return;
    recorded = into.splice(0);
    send({ type: 'statements', statements: recorded });
  });
  process.once('disconnect', () => {
    server.close().catch((error: unknown) => {
      process.stderr.write(`dashboard-target service: close failed: ${String(error)}\n`);
      process.exitCode = 1;
    });
  });
  send({ type: 'ready', url: server.url });
}

async function serveExample(dataDir: string, webRoot: string): Promise<void> {
  const { loadConfig, seedExampleData, startServer } = await import('@service/server');
  // Addresses the screenshots show (embed tokens' URLs) name a site, not the throw-away port.
  const environment = { ...serviceEnvironment(dataDir), SERVICE_PUBLIC_URL: 'https://data.example.org' };
  const server = await startServer(loadConfig(environment, dataDir), { webRoot });
  await seedExampleData(server.context);
  process.once('disconnect', () => {
    void server.close();
  });
  send({ type: 'ready', url: server.url });
}

async function generate(scratchDir: string, parquet: string, rows: number): Promise<void> {
  const context = await openContext(scratchDir);
  try {
    const started = performance.now();
    await context.duckdb.withConnection((connection) => connection.run(generateTableSql(parquet, rows)));
    send({ type: 'generated', seconds: (performance.now() - started) / 1000, bytes: (await stat(parquet)).size });
  } finally {
    await context.close();
  }
  process.disconnect?.();
}

async function baseline(scratchDir: string): Promise<void> {
  const context = await openContext(scratchDir);
  const engine = context.duckdb as unknown as Engine;
  let queue = Promise.resolve();
  process.on('message', (message: { type?: string; statements?: RecordedStatement[] }) => {
    if (message.type !== 'replay') return;
    const statements = message.statements ?? [];
    // One replay at a time, in the order asked.
    queue = queue.then(async () => {
      try {
        const each = statements.map(() => 0);
        const started = performance.now();
        for (const number of new Set(statements.map((statement) => statement.connection))) {
          await engine.withConnection(async (connection) => {
            for (const [index, statement] of statements.entries()) {
              if (statement.connection !== number) continue;
              const begun = performance.now();
              await connection[statement.method](statement.sql, statement.params);
              each[index] = performance.now() - begun;
            }
          });
        }
        send({ type: 'replayed', ms: performance.now() - started, each });
      } catch (error) {
        send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
    });
  });
  process.once('disconnect', () => {
    void queue.finally(() => context.close());
  });
  send({ type: 'ready', url: '' });
}

async function main(): Promise<void> {
  const [kind, dir, ...rest] = process.argv.slice(2);
  try {
    if (kind === 'service' && dir && (rest.length === 1 || rest.length === 2)) {
      await serve(dir, rest[0] ?? '', rest[1] ?? null);
    } else if (kind === 'example' && dir && rest.length === 1) {
      await serveExample(dir, rest[0] ?? '');
    } else if (kind === 'generate' && dir && rest.length === 2) {
      await generate(dir, rest[0] ?? '', Number(rest[1]));
    } else if (kind === 'baseline' && dir && rest.length === 0) {
      await baseline(dir);
    } else {
      throw new Error(
        'usage: dashboard-target.js service <data dir> <upload max bytes> [web root] | example <data dir> <web root> | ' +
          `generate <scratch dir> <parquet> <rows> | baseline <scratch dir> (got "${process.argv.slice(2).join(' ')}")`,
      );
    }
  } catch (error) {
    failed(error);
  }
}

await main();
