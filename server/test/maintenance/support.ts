import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, inject } from 'vitest';
import { createTestBucket, s3Available, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  call,
  createProjectWithUpload,
  DIALECTS,
  type Dialect,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

export type StorageKind = 'local' | 's3';
export const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';

/** Runs a suite per database dialect and storage backend; missing services skip (loudly, in global setup). */
export function describeEachBackend(name: string, suite: (dialect: Dialect, storage: StorageKind) => void): void {
  for (const dialect of DIALECTS) {
    for (const storage of ['local', 's3'] as const) {
      const skip =
        (dialect === 'postgres' && inject('postgresAdminUrl') === '') || (storage === 's3' && !s3Available());
      (skip ? describe.skip : describe)(`${name} [${dialect}, ${storage}]`, () => suite(dialect, storage));
    }
  }
}

export interface BackendServer {
  server: TestServer;
  /** Every key in the server's storage. */
  keys(): Promise<string[]>;
  /** Files in the local copies of remote objects (S3 only), of every server on this data directory. */
  cachedFiles(): Promise<string[]>;
  /** Another server on the same database and storage, as a second replica; stopped with this one. */
  replica(): Promise<TestServer>;
  stop(): Promise<void>;
}

export async function startBackendServer(
  dialect: Dialect,
  storage: StorageKind,
  env: Record<string, string> = {},
): Promise<BackendServer> {
  let bucket: TestBucket | null = null;
  const storageEnv: Record<string, string> = {};
  if (storage === 's3') {
    bucket = await createTestBucket();
    const settings = testS3Settings();
    Object.assign(storageEnv, {
      SERVICE_STORAGE_URL: `s3://${bucket.bucket}/tenant`,
      SERVICE_S3_ENDPOINT: settings.endpoint as string,
      SERVICE_S3_ACCESS_KEY_ID: settings.accessKeyId as string,
      SERVICE_S3_SECRET_ACCESS_KEY: settings.secretAccessKey as string,
    });
  }
  const serverEnv = {
    SERVICE_JOBS_ENABLED: 'false',
    SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
    ...storageEnv,
    ...env,
  };
  const server = await startTestServer(dialect, serverEnv);
  const replicas: TestServer[] = [];
  return {
    server,
    async keys() {
      // Behind the server's back: the bucket itself, or the storage directory.
      if (bucket !== null) return (await bucket.keys()).map((key) => key.replace(/^tenant\//, ''));
      const root = join(server.database.dataDir, 'storage');
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((entry) => !entry.parentPath.includes('.tmp'))
        .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
        .sort();
    },
    async cachedFiles() {
      const root = join(server.database.dataDir, 'cache');
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    },
    async replica() {
      const replica = await startTestServer(server.database, serverEnv);
      replicas.push(replica);
      return replica;
    },
    async stop() {
      for (const replica of replicas) await replica.stop();
      await server.stop();
      await server.database.drop();
      await bucket?.drop();
    },
  };
}

/** A project with one uploaded CSV, upserted into its table and read once (filling the cache on S3). */
export async function projectWithTable(server: TestServer, token: string, name: string) {
  const project = await createProjectWithUpload(server, token, name);
  const upsert = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: project.collectionId },
  });
  if (upsert.status !== 200) throw new Error(`upsert failed: ${upsert.status} ${upsert.text}`);
  const preview = await call(server, 'GET', `/datacollections/${project.collectionId}/preview`, { token });
  if (preview.status !== 200) throw new Error(`preview failed: ${preview.status} ${preview.text}`);
  const files = await call<{ items: { file_id: string }[] }>(
    server,
    'GET',
    `/datacollections/${project.collectionId}/files`,
    { token },
  );
  return { ...project, fileIds: files.body.items.map((file) => file.file_id) };
}

/** Keys (and, on local storage, directories) that name any of `ids`. */
export function naming(keys: string[], ids: string[]): string[] {
  return keys.filter((key) => ids.some((id) => key.includes(id)));
}
