import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX, loadConfig, type RunningServer, startServer } from '@service/server';
import { describe, inject } from 'vitest';
import { createTestPostgresDatabase } from './postgres-database.js';
import './postgres-context.js';

export type Dialect = 'sqlite' | 'postgres';
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

/** Runs a suite once per database dialect; the PostgreSQL run skips (loudly, in global setup) without a server. */
export function describeEachDialect(name: string, suite: (dialect: Dialect) => void): void {
  for (const dialect of DIALECTS) {
    const skip = dialect === 'postgres' && inject('postgresAdminUrl') === '';
    (skip ? describe.skip : describe)(`${name} [${dialect}]`, () => suite(dialect));
  }
}

/** A metadata database for a test: a fresh SQLite file or a fresh PostgreSQL database. */
export interface TestDatabase {
  dialect: Dialect;
  /** The value for SERVICE_DATABASE_URL. */
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-test-'));
  if (dialect === 'sqlite') {
    return {
      dialect,
      url: `sqlite:${join(dataDir, 'service.sqlite')}`,
      dataDir,
      drop: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const database = await createTestPostgresDatabase(inject('postgresAdminUrl'));
  return {
    dialect,
    url: database.url,
    dataDir,
    async drop() {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServer extends RunningServer {
  database: TestDatabase;
  /** Stops the server; the database stays until `database.drop()`. */
  stop(): Promise<void>;
}

export const ADMIN = { email: 'admin@example.org', password: 'admin-password-1234' } as const;

/**
 * Starts the real server on a loopback port over a database. Several servers may share one
 * database (`database` given) to act as replicas.
 */
export async function startTestServer(
  target: Dialect | TestDatabase,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const database = typeof target === 'string' ? await createTestDatabase(target) : target;
  const config = loadConfig({
    SERVICE_DATA_DIR: database.dataDir,
    SERVICE_DATABASE_URL: database.url,
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    SERVICE_PUBLIC_URL: 'http://127.0.0.1:8058',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  const server = await startServer(config, { webRoot: null, periodicCleanup: false });
  return { ...server, database, stop: () => server.close() };
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  json?: unknown;
  form?: FormData;
  body?: string | URLSearchParams;
  token?: string;
  headers?: Record<string, string>;
}

/** One HTTP call to the API on loopback; parses JSON answers. */
export async function call<T = Record<string, unknown>>(
  server: { url: string },
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | URLSearchParams | FormData | undefined = options.form ?? options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${server.url}${path.startsWith('/health') ? '' : API_PREFIX}${path}`, {
    method,
    headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown = null;
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface Session {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  user: { user_id: string; email: string; role: string };
}

export async function login(server: { url: string }, email: string, password: string): Promise<Session> {
  const answer = await call<Session>(server, 'POST', '/auth/login', { json: { email, password } });
  if (answer.status !== 200) throw new Error(`login as ${email} failed: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** Creates a regular account through the admin API and signs it in. */
export async function createUser(server: { url: string }, adminToken: string, email: string): Promise<Session> {
  const password = `${email}-password`;
  const created = await call(server, 'POST', '/users', { token: adminToken, json: { email, password, role: 'user' } });
  if (created.status !== 201) throw new Error(`creating ${email} failed: ${created.status} ${created.text}`);
  return login(server, email, password);
}

/** Uploads one file into a data collection through the upload form; answers the HTTP status. */
export async function uploadFile(
  server: { url: string },
  token: string,
  collectionId: string,
  file: { path: string; content: string | Buffer; run?: string },
): Promise<number> {
  const form = new FormData();
  if (file.run !== undefined) form.append('run', file.run);
  form.append('path', file.path);
  form.append('file', new Blob([file.content]), file.path.split('/').pop());
  const response = await fetch(`${server.url}${API_PREFIX}/datacollections/${collectionId}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  await response.arrayBuffer();
  return response.status;
}

/** A project with one workflow and one upload-only CSV collection (`t.csv`) holding one file. */
export async function createProjectWithUpload(
  server: { url: string },
  token: string,
  name: string,
  csv = 'a,b\n1,2\n3,4\n',
) {
  const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name } });
  const workflow = await call<{ workflow_id: string }>(
    server,
    'POST',
    `/projects/${project.body.project_id}/workflows`,
    {
      token,
      json: { name: 'wf' },
    },
  );
  const collection = await call<{ data_collection_id: string }>(
    server,
    'POST',
    `/workflows/${workflow.body.workflow_id}/datacollections`,
    { token, json: { tag: 't', pattern: 't\\.csv', format: 'csv' } },
  );
  const status = await uploadFile(server, token, collection.body.data_collection_id, { path: 't.csv', content: csv });
  if (status !== 201) throw new Error(`upload failed with ${status}`);
  return {
    projectId: project.body.project_id,
    workflowId: workflow.body.workflow_id,
    collectionId: collection.body.data_collection_id,
  };
}

/** Who a dashboard is shared with, by email, as `PUT /dashboards/{id}/permissions` takes it. */
export interface DashboardSharing {
  owners: readonly string[];
  editors: readonly string[];
  viewers: readonly string[];
  is_public: boolean;
}

/** Creates a dashboard as `token`'s user, then shares it; answers its id, and throws on any refusal. */
export async function createSharedDashboard(
  server: { url: string },
  token: string,
  dashboard: Record<string, unknown>,
  sharing: DashboardSharing,
): Promise<string> {
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', { token, json: dashboard });
  if (created.status !== 201) throw new Error(`creating the dashboard failed: ${created.status} ${created.text}`);
  const id = created.body.dashboard_id;
  const shared = await call(server, 'PUT', `/dashboards/${id}/permissions`, { token, json: sharing });
  if (shared.status !== 200) throw new Error(`sharing the dashboard failed: ${shared.status} ${shared.text}`);
  return id;
}

/** Signs `email` in through the server's own services, making the account (with no password) when new. */
export async function sessionFor(server: TestServer, email: string): Promise<Session> {
  const row =
    (await server.context.users.repository.findByEmail(email)) ??
    (await server.context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' }));
  return server.context.sessions.start(row);
}

/**
 * A token for each role of the permission tests: the admin, owner@, editor@, viewer@ and other@
 * (all at example.org), and a temporary user when `temporary` (public and demo modes let one in).
 */
export async function roleTokens(server: TestServer, temporary: boolean): Promise<Record<string, string | undefined>> {
  const tokens: Record<string, string | undefined> = { admin: (await sessionFor(server, ADMIN.email)).access_token };
  for (const name of ['owner', 'editor', 'viewer', 'other'])
    tokens[name] = (await sessionFor(server, `${name}@example.org`)).access_token;
  if (temporary) {
    const made = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    if (made.status !== 201) throw new Error(`no temporary user: ${made.status} ${made.text}`);
    tokens.temporary = made.body.access_token;
  }
  return tokens;
}

/** The sharing of the permission tests' dashboards: one person in each role (see roleTokens). */
export const SHARING = {
  owners: ['owner@example.org'],
  editors: ['editor@example.org'],
  viewers: ['viewer@example.org'],
} as const satisfies Omit<DashboardSharing, 'is_public'>;
