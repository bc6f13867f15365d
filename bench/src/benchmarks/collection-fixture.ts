/**
 * The data collection the `ingest` and `web` benchmarks fill: the bench admin signs in, then
 * creates a project, a workflow and a CSV collection through the API, as a user would.
 */
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { requestJson } from './ingest-http.js';

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

/** Signs in as the bench admin and creates `project` › `workflow` › collection `tag` (CSV files matching `pattern`). */
export async function createBenchCollection(
  api: string,
  names: { project: string; workflow: string; tag: string; pattern: string },
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
    body: { tag: names.tag, pattern: names.pattern, format: 'csv' },
  });
  const collectionId = field<string>(collection, 'data_collection_id', 'POST /workflows/{id}/datacollections');
  return { session: session as Record<string, unknown>, token, projectId, collectionId };
}
