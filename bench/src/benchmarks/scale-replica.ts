/** The `scale` benchmark's API replicas: real `service serve` processes on one PostgreSQL database. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVICE_CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export const SCALE_ADMIN = { email: 'scale@example.org', password: 'scale-bench-password-1' } as const;

export interface ReplicaProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `service serve` as an API-only replica (SERVICE_JOBS_WORKERS=0, as in the Helm chart and
 * compose) on a loopback port of its choosing, and waits for its "listening on" line; `env` adds
 * or overrides settings (the `live` benchmark's stream limit).
 */
export function startReplica(
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ReplicaProcess> {
  const child = spawn(process.execPath, [SERVICE_CLI, 'serve'], {
    env: {
      PATH: process.env.PATH,
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_JOBS_WORKERS: '0',
      // The benchmark migrates first, as `service migrate` does before replicas start.
      SERVICE_DATABASE_AUTO_MIGRATE: 'false',
      // A log line per request would dominate what is measured (as in the `api` benchmark).
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: SCALE_ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: SCALE_ADMIN.password,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service serve did not start within 60 s: ${stderr.trim()}`));
    }, START_TIMEOUT_MS);
    const exitedEarly = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`service serve exited (${code}) before listening: ${stderr.trim()}`));
    };
    child.once('exit', exitedEarly);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const listening = /listening on (http:\/\/[^;\s)]+)/.exec(stderr);
      if (listening === null) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stderr.resume();
      resolve({
        url: listening[1]!,
        pid: child.pid ?? 0,
        async stop() {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}
