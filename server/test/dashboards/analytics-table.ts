import { dashboardDataAnswerSchema } from '@service/common';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  call,
  createProjectWithUpload,
  type Session,
  sessionFor,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/**
 * The small known table the dashboard data tests compute on: 120 penguins, `i` = 0…119.
 * - sample `S000`…`S119`; species Adelie (i < 60), Gentoo (60 ≤ i < 100), Chinstrap (i ≥ 100)
 * - island Dream (even i) / Biscoe (odd i); mass 3000 + 10·i; flipper (i mod 10) + 0.5
 * - day 2024-01-01 + (i mod 30) days; male when i mod 4 = 0
 * The expected numbers in the tests were worked out from these rules by hand (or a calculator),
 * not by the code under test.
 */
export const PENGUINS = [
  'sample,species,island,mass,flipper,day,male',
  ...Array.from({ length: 120 }, (_, i) => {
    const species = i < 60 ? 'Adelie' : i < 100 ? 'Gentoo' : 'Chinstrap';
    const day = `2024-01-${String((i % 30) + 1).padStart(2, '0')}`;
    return [
      `S${String(i).padStart(3, '0')}`,
      species,
      i % 2 ? 'Biscoe' : 'Dream',
      3000 + 10 * i,
      (i % 10) + 0.5,
      day,
      i % 4 === 0,
    ].join(',');
  }),
  '',
].join('\n');

/** A server with accounts made directly (public mode has no user administration routes). */
export async function serverWithPeople(dialect: 'sqlite' | 'postgres', env: Record<string, string> = {}) {
  const server = await startTestServer(dialect, env);
  const session = (email: string): Promise<Session> => sessionFor(server, email);
  return { server, session };
}

/** A project owned by `token` with one collection holding `csv` in its table. */
export async function projectWithTable(server: TestServer, token: string, name: string, csv = PENGUINS) {
  const project = await createProjectWithUpload(server, token, name, csv);
  await upsert(server, token, project.collectionId);
  return project;
}

export async function upsert(server: TestServer, token: string, collectionId: string) {
  const answer = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: collectionId },
  });
  if (answer.status !== 200) throw new Error(`upsert failed: ${answer.text}`);
}

export interface DataAnswer {
  version: Record<string, number | null>;
  components: Record<string, Record<string, unknown>>;
}

/** The figure answer's rows as objects keyed by column role. */
export function rowsOf(data: Record<string, unknown>): Record<string, unknown>[] {
  const columns = (data.columns as { name: string }[]).map((column) => column.name);
  return (data.rows as unknown[][]).map((row) => Object.fromEntries(columns.map((name, index) => [name, row[index]])));
}

type Component = Record<string, unknown>;

/**
 * The harness of the chart and filter tests: a server with one signed-in owner, Ada, started before
 * the enclosing `describe`'s tests and dropped after them; tables and dashboards made on it.
 */
export function chartHarness(dialect: 'sqlite' | 'postgres', name: string) {
  let started: { server: TestServer; ada: Session } | undefined;
  let tables = 0;
  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    started = { server: people.server, ada: await people.session('ada@example.org') };
  });
  afterAll(async () => {
    await started?.server.stop();
    await started?.server.database.drop();
  });
  const running = () => {
    if (started === undefined) throw new Error('the server starts before the tests');
    return started;
  };
  const harness = {
    get server(): TestServer {
      return running().server;
    },
    get ada(): Session {
      return running().ada;
    },
    /** A new project (`<name> n`) with one collection holding `csv` in its table. */
    table: (csv = PENGUINS) => projectWithTable(harness.server, harness.ada.access_token, `${name} ${++tables}`, csv),
    /** `POST /dashboards` of `components` on the collection, its answer unchecked. */
    save: (table: { projectId: string; collectionId: string }, components: Component[]) =>
      call<{ dashboard_id: string }>(harness.server, 'POST', '/dashboards', {
        token: harness.ada.access_token,
        json: {
          project_id: table.projectId,
          title: name,
          components: components.map((component) => ({ data_collection_id: table.collectionId, ...component })),
        },
      }),
    /** `POST /dashboards/{id}/data` with `filters`, its answer unchecked. */
    dataOf: (dashboardId: string, filters: unknown[] = []) =>
      call<DataAnswer>(harness.server, 'POST', `/dashboards/${dashboardId}/data`, {
        token: harness.ada.access_token,
        json: { filters },
      }),
    /** Expects `POST /dashboards` to refuse each figure of `cases` on a table of `csv`, naming the field. */
    async expectRefused(csv: string, cases: [Component, string][]) {
      const table = await harness.table(csv);
      for (const [figure, field] of cases) {
        const answer = await call<{ code: string; errors: { path: string }[] }>(harness.server, 'POST', '/dashboards', {
          token: harness.ada.access_token,
          json: {
            project_id: table.projectId,
            title: name,
            components: [{ component_id: 'f', type: 'figure', data_collection_id: table.collectionId, ...figure }],
          },
        });
        expect(answer.status, JSON.stringify(figure)).toBe(400);
        expect(answer.body.code).toBe('validation_failed');
        expect(answer.body.errors.map((error) => error.path)).toEqual([`body.components[0].${field}`]);
      }
    },
    /**
     * A new project with a table of `csv` and a second collection whose file, `later.csv`, has not
     * arrived yet: dashboards can be saved on it before its columns are known; `arrive` brings it.
     */
    async pendingCollection(csv: string) {
      const { projectId } = await harness.table(csv);
      const token = harness.ada.access_token;
      const workflow = await call<{ workflow_id: string }>(harness.server, 'POST', `/projects/${projectId}/workflows`, {
        token,
        json: { name: 'later' },
      });
      const collection = await call<{ data_collection_id: string }>(
        harness.server,
        'POST',
        `/workflows/${workflow.body.workflow_id}/datacollections`,
        { token, json: { tag: 'later', pattern: 'later\\.csv', format: 'csv' } },
      );
      const collectionId = collection.body.data_collection_id;
      const arrive = async (content: string) => {
        expect(await uploadFile(harness.server, token, collectionId, { path: 'later.csv', content })).toBe(201);
        await upsert(harness.server, token, collectionId);
      };
      return { projectId, collectionId, arrive };
    },
    /** A dashboard of `components` on a new table of `csv`, and its data (with filters). */
    async dashboardOf(csv: string, components: Component[]) {
      const table = await harness.table(csv);
      const created = await harness.save(table, components);
      expect(created.status, created.text).toBe(201);
      const dashboardId = created.body.dashboard_id;
      return { ...table, dashboardId, data: (filters: unknown[] = []) => harness.dataOf(dashboardId, filters) };
    },
    /** The components' data of a new dashboard: answered, and exactly its schema's encoding as written. */
    async draw(csv: string, components: Component[], filters: unknown[] = []) {
      const answer = await (await harness.dashboardOf(csv, components)).data(filters);
      expect(answer.status, answer.text).toBe(200);
      const encoded = JSON.parse(JSON.stringify(dashboardDataAnswerSchema.encode(answer.body as never)));
      expect(answer.body).toEqual(encoded);
      return answer.body.components;
    },
  };
  return harness;
}
