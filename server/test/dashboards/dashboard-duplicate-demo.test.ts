import { afterAll, beforeAll, expect, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople, upsert } from './analytics-table.js';

/**
 * Demo mode: a temporary visitor duplicates a public dashboard of a private project and edits the
 * copy. "A dashboard never shows more of a project than its editors may read" (docs/architecture.md "Dashboards"):
 * the visitor reads the project only through what the original showed, so the copy may show
 * another arrangement of that, never another collection or a column the original did not show.
 */

interface Dashboard {
  dashboard_id: string;
  title: string;
  my_role: string;
  is_public: boolean;
  project_role: string | null;
  components: Record<string, unknown>[];
}
interface Problem {
  code: string;
  detail: string;
}

describeEachDialect('duplicating in demo mode', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let projectId: string;
  let penguins: string;
  let secrets: string;
  let publicId: string;

  const original = () => [
    { component_id: 'intro', type: 'text', markdown: '# Penguins' },
    {
      component_id: 'mass',
      type: 'figure',
      chart: 'bar',
      data_collection_id: penguins,
      x: 'island',
      y: 'mass',
      agg: 'mean',
    },
    { component_id: 'island', type: 'interactive', widget: 'select', data_collection_id: penguins, column: 'island' },
    { component_id: 'rows', type: 'table', data_collection_id: penguins, columns: ['sample', 'mass'] },
  ];
  const visitor = async () => {
    const temp = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    expect(temp.status, temp.text).toBe(201);
    return temp.body.access_token;
  };
  const save = (token: string, id: string, components: unknown[]) =>
    call<Dashboard & Problem>(server, 'PUT', `/dashboards/${id}`, { token, json: { title: 'Mine', components } });

  beforeAll(async () => {
    const people = await serverWithPeople(dialect, {
      SERVICE_AUTH_PUBLIC_MODE: 'true',
      SERVICE_AUTH_DEMO_MODE: 'true',
      SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: '0.001',
    });
    server = people.server;
    ada = await people.session('ada@example.org');
    const project = await projectWithTable(server, ada.access_token, 'Penguins');
    projectId = project.projectId;
    penguins = project.collectionId;
    const second = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${project.workflowId}/datacollections`,
      { token: ada.access_token, json: { tag: 'secrets', pattern: 's\\.csv', format: 'csv' } },
    );
    secrets = second.body.data_collection_id;
    expect(
      await uploadFile(server, ada.access_token, secrets, { path: 's.csv', content: 'sample,diagnosis\nS000,x\n' }),
    ).toBe(201);
    await upsert(server, ada.access_token, secrets);
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Penguins', is_public: true, components: original() },
    });
    expect(created.status, created.text).toBe(201);
    publicId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('lets a temporary user duplicate a public dashboard; anonymous visitors must sign in first', async () => {
    expect((await call(server, 'GET', `/dashboards/${publicId}`)).status).toBe(200);
    expect((await call(server, 'POST', `/dashboards/${publicId}/duplicate`, { json: {} })).status).toBe(401);
    const token = await visitor();
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${publicId}/duplicate`, { token, json: {} });
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body).toMatchObject({ my_role: 'owner', is_public: false, project_role: null });
    expect(copy.body.components).toEqual(
      (await call<Dashboard>(server, 'GET', `/dashboards/${publicId}`)).body.components,
    );
    // The copy is private: anonymous visitors do not see it.
    expect((await call(server, 'GET', `/dashboards/${copy.body.dashboard_id}`)).status).toBe(404);
    const data = await call(server, 'POST', `/dashboards/${copy.body.dashboard_id}/data`, { token, json: {} });
    expect(data.status, data.text).toBe(200);
  });

  it('keeps the copy to the collections and columns the original shows', async () => {
    const token = await visitor();
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${publicId}/duplicate`, { token, json: {} });
    const id = copy.body.dashboard_id;
    const refused: [string, unknown[]][] = [
      ['another collection', [{ component_id: 's', type: 'table', data_collection_id: secrets }]],
      ['every column', [{ component_id: 'rows', type: 'table', data_collection_id: penguins }]],
      [
        'a column not shown',
        [{ component_id: 'rows', type: 'table', data_collection_id: penguins, columns: ['sample', 'species'] }],
      ],
      [
        'sorting by a column not shown',
        [
          {
            component_id: 'rows',
            type: 'table',
            data_collection_id: penguins,
            columns: ['sample'],
            sort: [{ column: 'flipper', direction: 'asc' }],
          },
        ],
      ],
      [
        'a chart of a column not shown',
        [{ component_id: 'f', type: 'figure', chart: 'histogram', data_collection_id: penguins, x: 'flipper' }],
      ],
      [
        'a card of a column not shown',
        [{ component_id: 'c', type: 'card', data_collection_id: penguins, column: 'day', agg: 'max' }],
      ],
      [
        'a filter on a column not shown',
        [{ component_id: 'i', type: 'interactive', widget: 'switch', data_collection_id: penguins, column: 'male' }],
      ],
    ];
    for (const [what, components] of refused) {
      const answer = await save(token, id, components);
      expect(answer.status, `${what}: ${answer.text}`).toBe(403);
      expect(answer.body.code).toBe('forbidden');
    }
    const unchanged = await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token });
    expect(unchanged.body.components).toEqual(copy.body.components);

    // Any arrangement of what the original shows is the visitor's: the columns of every component
    // on the collection count (a scatter of two columns two components showed, a count card, a
    // filter on a column a table shows).
    const allowed = [
      { component_id: 'note', type: 'text', markdown: 'My notes' },
      {
        component_id: 'scatter',
        type: 'figure',
        chart: 'scatter',
        data_collection_id: penguins,
        x: 'mass',
        y: 'mass',
        color: 'island',
      },
      { component_id: 'count', type: 'card', data_collection_id: penguins, agg: 'count' },
      { component_id: 'sample', type: 'interactive', widget: 'search', data_collection_id: penguins, column: 'sample' },
      {
        component_id: 'rows',
        type: 'table',
        data_collection_id: penguins,
        columns: ['mass', 'island'],
        sort: [{ column: 'sample', direction: 'desc' }],
      },
    ];
    const saved = await save(token, id, allowed);
    expect(saved.status, saved.text).toBe(200);
    // The original is untouched, and still not the visitor's to change.
    expect((await call<Dashboard>(server, 'GET', `/dashboards/${publicId}`)).body.components).toEqual(
      copy.body.components,
    );
    expect((await save(token, publicId, allowed)).status).toBe(403);
  });

  it("lets the project's readers widen their copy, and removes a visitor's copies with the visitor", async () => {
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${publicId}/duplicate`, {
      token: ada.access_token,
      json: { title: 'Ada' },
    });
    const widened = await save(ada.access_token, copy.body.dashboard_id, [
      { component_id: 's', type: 'table', data_collection_id: secrets },
    ]);
    expect(widened.status, widened.text).toBe(200);

    const token = await visitor();
    const mine = await call<Dashboard>(server, 'POST', `/dashboards/${publicId}/duplicate`, { token, json: {} });
    expect(mine.status).toBe(201);
    // Ten seconds later (the lifetime is 0.001 h, 3.6 s) the visitor and their copy are gone.
    await withClockAhead(10_000, () => server.context.temporaryUsers.removeExpired());
    expect(
      (await call(server, 'GET', `/dashboards/${mine.body.dashboard_id}`, { token: ada.access_token })).status,
    ).toBe(404);
    expect(
      (await call(server, 'GET', `/dashboards/${copy.body.dashboard_id}`, { token: ada.access_token })).status,
    ).toBe(200);
  });
});
