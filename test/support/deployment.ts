import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { callbackUrlFor, type OidcProviderHandle, startOidcProvider } from './oidc-provider.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from './postgres-database.js';
import {
  killAllServices,
  type ServiceProcess,
  spawnService,
  startServe,
  startWorker as startWorkerProcess,
} from './processes.js';
import { type DatabaseCutter, type RoundRobinProxy, startDatabaseCutter, startRoundRobinProxy } from './proxies.js';
import { createTestBucket, type TestBucket } from './s3-storage.js';
import { ADMIN } from './test-server.js';

/** A claim lasts this long without a heartbeat: a killed worker's job is taken over within seconds. */
export const LEASE_SECONDS = 3;

export interface Deployment {
  /** The one address of the API (round-robin over the replicas), also their SERVICE_PUBLIC_URL. */
  readonly url: string;
  /** The API replicas (`service serve` with SERVICE_JOBS_WORKERS=0), reachable one by one. */
  readonly replicas: (ServiceProcess & { url: string })[];
  /** The `service worker` processes started so far (killed ones included). */
  readonly workers: ServiceProcess[];
  readonly idp: OidcProviderHandle;
  readonly cutter: DatabaseCutter;
  readonly database: TestPostgresDatabase;
  /** Starts one more `service worker`; `env` adds to or overrides the shared settings. */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  /** Kills every process and removes the database, bucket and directories. */
  stop(): Promise<void>;
}

/**
 * Two API replicas and two workers, all separate `service` processes from the built CLI, on one
 * fresh PostgreSQL database (through a connection cutter) and one fresh bucket on the test S3
 * service; the schema is moved once by `service migrate`, and every process runs with
 * auto-migration off, as in a multi-process deployment.
 */
export async function startDeployment(): Promise<Deployment> {
  const cleanups: (() => Promise<unknown>)[] = [killAllServices];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const adminUrl = inject('postgresAdminUrl');
    const endpoint = inject('s3Endpoint');
    if (adminUrl === '' || endpoint === '') throw new Error('the deployment test needs PostgreSQL and S3');
    const database = await createTestPostgresDatabase(adminUrl);
    cleanups.push(() => database.drop());
    const admin = new URL(database.url);
    const cutter = await startDatabaseCutter({ host: admin.hostname, port: Number(admin.port || 5432) });
    cleanups.push(() => cutter.close());
    const bucket: TestBucket = await createTestBucket();
    cleanups.push(() => bucket.drop());
    const proxy: RoundRobinProxy = await startRoundRobinProxy();
    cleanups.push(() => proxy.close());
    const idp = await startOidcProvider({ redirectUris: [callbackUrlFor(proxy.url)] });
    cleanups.push(() => idp.stop());
    const baseDir = await mkdtemp(join(tmpdir(), 'service-deployment-'));
    cleanups.push(() => rm(baseDir, { recursive: true, force: true }));

    const { accessKeyId, secretAccessKey } = inject('s3Credentials');
    let count = 0;
    // Each process has a data directory of its own: replicas share nothing but the database and S3.
    const envFor = (name: string, extra: Record<string, string> = {}): Record<string, string> => ({
      SERVICE_DATA_DIR: join(baseDir, `${name}-${count++}`),
      SERVICE_DATABASE_URL: cutter.urlFor(database.url),
      SERVICE_DATABASE_AUTO_MIGRATE: 'false',
      SERVICE_STORAGE_URL: `s3://${bucket.bucket}/deployment`,
      SERVICE_S3_ENDPOINT: endpoint,
      SERVICE_S3_ACCESS_KEY_ID: accessKeyId,
      SERVICE_S3_SECRET_ACCESS_KEY: secretAccessKey,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_PUBLIC_URL: proxy.url,
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SERVICE_JOBS_LEASE_SECONDS: String(LEASE_SECONDS),
      SERVICE_LOG_LEVEL: 'info',
      ...idp.serverEnv,
      ...extra,
    });

    const migrate = spawnService('migrate', ['migrate'], envFor('migrate'));
    const migrated = await migrate.exited;
    if (migrated !== 0) throw new Error(`service migrate failed (${migrated}): ${migrate.stderr()}`);

    const workers: ServiceProcess[] = [];
    const startWorker = async (env: Record<string, string> = {}) => {
      const name = `worker-${workers.length + 1}`;
      const worker = await startWorkerProcess(name, envFor(name, { SERVICE_JOBS_WORKERS: '1', ...env }));
      workers.push(worker);
      return worker;
    };
    // Replicas log warnings only: their request lines would fill memory under load.
    const replicaEnv = { SERVICE_JOBS_WORKERS: '0', SERVICE_LOG_LEVEL: 'warn', SERVICE_SHUTDOWN_DELAY_SECONDS: '2' };
    const [a, b] = await Promise.all([
      startServe('replica-a', envFor('replica-a', replicaEnv)),
      startServe('replica-b', envFor('replica-b', replicaEnv)),
      startWorker(),
      startWorker(),
    ]);
    proxy.setTargets([a.url, b.url]);
    return { url: proxy.url, replicas: [a, b], workers, idp, cutter, database, startWorker, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
