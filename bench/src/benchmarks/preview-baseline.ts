/**
 * Child process of the `preview` benchmark: `preview-baseline.js <table dir> <scratch dir>` opens
 * the server's DuckDB (same settings, its own metadata database in the scratch dir), finds the
 * table's Parquet files under the table dir, reports `{ type: 'ready', url: '' }`, then answers
 * every `{ type: 'run' }` with `{ type: 'ran', ms, rows }`: the time DuckDB alone took for the
 * preview's two statements (the first 25 rows, then the row count) over those files.
 * It exits when the parent disconnects.
 */
import { readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { TargetMessage } from '../lib/child-target.js';
import { serviceEnvironment } from './api-fixture.js';

export type PreviewBaselineMessage = TargetMessage | { type: 'ran'; ms: number; rows: number; files: number };

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The table's data files: every Parquet file under the dir but the Delta log's checkpoints. */
async function parquetFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries
    .filter((entry) => entry.endsWith('.parquet') && !entry.split(sep).includes('_delta_log'))
    .map((entry) => join(dir, entry))
    .sort();
}

async function main(): Promise<void> {
  const [tableDir, scratchDir] = process.argv.slice(2);
  const send = (message: PreviewBaselineMessage) => process.send?.(message);
  if (!tableDir || !scratchDir) {
    send({ type: 'failed', message: 'usage: preview-baseline.js <table dir> <scratch dir>' });
    process.disconnect?.();
    return;
  }
  const { createContext, loadConfig } = await import('@service/server');
  const files = await parquetFiles(tableDir);
  if (files.length === 0) {
    send({ type: 'failed', message: `no Parquet file under ${tableDir}` });
    process.disconnect?.();
    return;
  }
  const from = `read_parquet([${files.map(quote).join(', ')}])`;
  const context = await createContext(loadConfig(serviceEnvironment(scratchDir), scratchDir));
  const connection = await context.duckdb.connect();
  let queue = Promise.resolve();
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'run') return;
    // One run at a time, in the order asked.
    queue = queue.then(async () => {
      try {
        const started = performance.now();
        const page = await connection.query(`SELECT * FROM ${from} LIMIT 25 OFFSET 0`);
        const [counted] = await connection.query(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${from}`);
        const ms = performance.now() - started;
        if (page.length !== 25) throw new Error(`first page: ${page.length} rows, not 25`);
        send({ type: 'ran', ms, rows: Number(counted?.n ?? 0), files: files.length });
      } catch (error) {
        send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
    });
  });
  process.once('disconnect', () => {
    void queue.finally(async () => {
      connection.close();
      await context.close();
    });
  });
  send({ type: 'ready', url: '' });
}

await main();
