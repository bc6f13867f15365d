/** The `jobs` benchmark's set-up (jobs.ts): a fresh PostgreSQL database and probe worker processes. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { UsageError } from '../lib/usage-error.js';

const PROBE_WORKER = fileURLToPath(new URL('../probe/worker.js', import.meta.url));

export function adminUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.BENCH_DATABASE_URL || env.SERVICE_TEST_DATABASE_URL;
  if (!url) {
    throw new UsageError(
      'needs PostgreSQL: set BENCH_DATABASE_URL or SERVICE_TEST_DATABASE_URL to a server where it may create a database',
    );
  }
  return url;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database for the run; `drop` disconnects whoever is left and removes it. */
export async function createDatabase(admin: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_jobs_${randomBytes(6).toString('hex')}`;
  await withClient(admin, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export interface WorkerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** Starts a probe worker (`service worker --concurrency 1` plus `queue.probe`) and waits until it says it runs. */
export function startWorker(url: string, dataDir: string): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [PROBE_WORKER, '--concurrency', '1'], {
    env: { PATH: process.env.PATH, SERVICE_DATABASE_URL: url, SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`probe worker did not start within 60 s: ${stderr.trim()}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`probe worker exited (${code}) before running: ${stderr.trim()}`));
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (!stderr.includes('Worker running')) return;
      clearTimeout(timer);
      child.stderr.resume();
      resolve({
        pid: child.pid ?? 0,
        async stop() {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}
