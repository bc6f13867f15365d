/**
 * The data collection the benchmarks fill: the bench admin signs in, then creates a project, a
 * workflow and a collection through the API, uploads a file and upserts it, as a user would. A
 * table built once can be kept in a folder and reused by later runs (`keptFixture`).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { requestJson, uploadFile } from './ingest-http.js';

/** `name` of a JSON answer; throws naming the request when it is missing. */
export function field<T>(value: unknown, name: string, what: string): T {
  const found = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  if (found === undefined) throw new Error(`${what}: no ${name} in the answer`);
  return found as T;
}

export interface BenchCollection {
  /** The sign-in answer (`access_token`, `refresh_token`, `user`), for a browser session too. */
  session: Record<string, unknown>;
  token: string;
  projectId: string;
  collectionId: string;
}

/**
 * Signs in as the bench admin and creates `project` › `workflow` › collection `tag` (files matching
 * `pattern`, CSV unless `format` says otherwise).
 */
export async function createBenchCollection(
  api: string,
  names: { project: string; workflow: string; tag: string; pattern: string; format?: 'csv' | 'parquet' },
): Promise<BenchCollection> {
  const session = await requestJson('POST', `${api}/auth/login`, {
    body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
  });
  const token = field<string>(session, 'access_token', 'POST /auth/login');
  const project = await requestJson('POST', `${api}/projects`, { token, body: { name: names.project } });
  const projectId = field<string>(project, 'project_id', 'POST /projects');
  const workflow = await requestJson('POST', `${api}/projects/${projectId}/workflows`, {
    token,
    body: { name: names.workflow },
  });
  const workflowId = field<string>(workflow, 'workflow_id', 'POST /projects/{id}/workflows');
  const collection = await requestJson('POST', `${api}/workflows/${workflowId}/datacollections`, {
    token,
    body: { tag: names.tag, pattern: names.pattern, format: names.format ?? 'csv' },
  });
  const collectionId = field<string>(collection, 'data_collection_id', 'POST /workflows/{id}/datacollections');
  return { session: session as Record<string, unknown>, token, projectId, collectionId };
}

/**
 * Uploads one local file into the collection (run `bench`) and upserts it; throws unless the table
 * then holds `rows` rows. Answers the upsert's seconds (never part of a figure).
 */
export async function uploadAndUpsert(
  api: string,
  collection: Pick<BenchCollection, 'token' | 'collectionId'>,
  file: { localPath: string; size: number; path: string; contentType: string },
  rows: number,
): Promise<number> {
  await uploadFile(`${api}/datacollections/${collection.collectionId}/files`, collection.token, {
    ...file,
    run: 'bench',
  });
  const started = performance.now();
  const upsert = await requestJson('POST', `${api}/deltatables/upsert`, {
    token: collection.token,
    body: { data_collection_id: collection.collectionId },
  });
  const tableRows = field<number>(upsert, 'rows', 'upsert');
  if (tableRows !== rows) throw new Error(`upsert: the table has ${tableRows} rows, the file ${rows}`);
  return (performance.now() - started) / 1000;
}

/**
 * The fixture an earlier run kept in `dir` (described by `dir/file`) when `reusable` accepts it;
 * otherwise `dir` is emptied and `build` makes a new one there, which is kept for the next run.
 */
export async function keptFixture<T>(
  dir: string,
  file: string,
  reusable: (kept: T) => boolean,
  build: (dir: string) => Promise<T>,
): Promise<{ fixture: T; reused: boolean }> {
  try {
    const kept = JSON.parse(await readFile(join(dir, file), 'utf8')) as T;
    if (reusable(kept)) return { fixture: kept, reused: true };
  } catch {
    // Nothing kept yet.
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const fixture = await build(dir);
  await writeFile(join(dir, file), JSON.stringify(fixture));
  return { fixture, reused: false };
}

/** A dashboard of `components` on the collection (each given its collection id), made by its owner. */
export async function createBenchDashboard(
  api: string,
  collection: BenchCollection,
  title: string,
  components: object[],
) {
  const dashboard = await requestJson('POST', `${api}/dashboards`, {
    token: collection.token,
    body: {
      project_id: collection.projectId,
      title,
      components: components.map((component) => ({ ...component, data_collection_id: collection.collectionId })),
    },
  });
  return field<string>(dashboard, 'dashboard_id', 'POST /dashboards');
}
