import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  type TestServer,
} from '../../../test/support/test-server.js';
import { serverWithPeople } from './analytics-table.js';

interface Dashboard {
  dashboard_id: string;
  project_id: string;
  title: string;
  is_public: boolean;
  my_role: string;
  project_role: string | null;
  permissions: { owners: { email: string }[]; editors: { email: string }[]; viewers: { email: string }[] };
  components: Record<string, unknown>[];
  layout: Record<string, unknown>[];
}
interface Rows {
  columns: { name: string }[];
  rows: Record<string, unknown>[];
  total: number;
  limit: number;
  skip: number;
}
interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

const CSV = `sample,mass,island\n${Array.from({ length: 30 }, (_, i) => `S${String(i).padStart(2, '0')},${3000 + ((i * 37) % 100)},${i % 2 ? 'Biscoe' : 'Dream'}`).join('\n')}\n`;

/** A project owned by `token` with one collection `t` holding CSV's 30 rows in its table. */
async function projectWithTable(server: TestServer, token: string, name: string) {
  const project = await createProjectWithUpload(server, token, name, CSV);
  const upsert = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: project.collectionId },
  });
  if (upsert.status !== 200) throw new Error(`upsert failed: ${upsert.text}`);
  return project;
}

const overview = (projectId: string, collectionId: string, extra: Record<string, unknown> = {}) => ({
  project_id: projectId,
  title: 'Overview',
  components: [
    { component_id: 'intro', type: 'text', markdown: '# Penguins\nBody **measurements**.' },
    {
      component_id: 'measures',
      type: 'table',
      data_collection_id: collectionId,
      columns: ['sample', 'mass'],
      page_size: 10,
      sort: [{ column: 'mass', direction: 'desc' }],
    },
  ],
  layout: [
    { component_id: 'intro', x: 0, y: 0, w: 12, h: 2 },
    { component_id: 'measures', x: 0, y: 2, w: 8, h: 6 },
  ],
  ...extra,
});

describeEachDialect('dashboards', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let eve: Session;
  let admin: Session;
  let penguins: Awaited<ReturnType<typeof projectWithTable>>;
  let session: (email: string) => Promise<Session>;

  beforeAll(async () => {
    ({ server, session } = await serverWithPeople(dialect));
    admin = await session(ADMIN.email);
    ada = await session('ada@example.org');
    bob = await session('bob@example.org');
    eve = await session('eve@example.org');
    penguins = await projectWithTable(server, ada.access_token, 'Penguins');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const create = (token: string, json: unknown) => call<Dashboard>(server, 'POST', '/dashboards', { token, json });
  const rows = (token: string | undefined, id: string, component: string, query = '') =>
    call<Rows>(server, 'GET', `/dashboards/${id}/components/${component}/rows${query}`, token ? { token } : {});

  it('creates a dashboard in a project, the creator its owner, with defaults filled in', async () => {
    const created = await create(ada.access_token, overview(penguins.projectId, penguins.collectionId));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      project_id: penguins.projectId,
      title: 'Overview',
      description: '',
      is_public: false,
      my_role: 'owner',
      project_role: 'owner',
      permissions: { owners: [{ email: 'ada@example.org' }], editors: [], viewers: [] },
      layout: [
        { component_id: 'intro', x: 0, y: 0, w: 12, h: 2 },
        { component_id: 'measures', x: 0, y: 2, w: 8, h: 6 },
      ],
    });
    expect(created.body.components[1]).toEqual({
      component_id: 'measures',
      type: 'table',
      data_collection_id: penguins.collectionId,
      columns: ['sample', 'mass'],
      page_size: 10,
      sort: [{ column: 'mass', direction: 'desc' }],
    });
    const again = await call<Dashboard>(server, 'GET', `/dashboards/${created.body.dashboard_id}`, {
      token: ada.access_token,
    });
    expect(again.body).toEqual(created.body);
  });

  it('refuses malformed content field by field, and component types that do not exist', async () => {
    const base = overview(penguins.projectId, penguins.collectionId);
    const cases: [unknown, string, RegExp][] = [
      [
        { ...base, components: [{ component_id: 'm', type: 'map', data_collection_id: penguins.collectionId }] },
        'body.components[0].type',
        /figure, card, interactive, table, text/,
      ],
      [
        {
          ...base,
          components: [
            {
              component_id: 'f',
              type: 'figure',
              chart: 'scatter',
              y: 'mass',
              data_collection_id: penguins.collectionId,
            },
          ],
        },
        'body.components[0].x',
        /scatter needs x/,
      ],
      [
        { ...base, layout: [{ component_id: 'ghost', x: 0, y: 0, w: 4, h: 2 }] },
        'body.layout[0].component_id',
        /no component/,
      ],
      [
        { ...base, layout: [...base.layout, { component_id: 'intro', x: 0, y: 9, w: 4, h: 2 }] },
        'body.layout[2].component_id',
        /twice/,
      ],
      [{ ...base, layout: [{ component_id: 'intro', x: 6, y: 0, w: 8, h: 2 }] }, 'body.layout[0].w', /12 columns/],
      [
        { ...base, components: [base.components[0], { ...base.components[0] }] },
        'body.components[1].component_id',
        /another component/,
      ],
      [{ ...base, title: '' }, 'body.title', /./],
      [{ ...base, owners: [] }, 'body.owners', /unknown field/],
      [
        { ...base, components: [{ component_id: 'm', type: 'table', data_collection_id: 'x', page_size: 0 }] },
        'body.components[0].page_size',
        /./,
      ],
    ];
    for (const [json, path, message] of cases) {
      const answer = await create(ada.access_token, json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
      const problem = answer.body as unknown as Problem;
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors, answer.text).toContainEqual({ path, message: expect.stringMatching(message) });
    }
  });

  it("refuses components that show another project's data, even one the creator owns", async () => {
    const other = await projectWithTable(server, ada.access_token, 'Other penguins');
    const answer = await create(ada.access_token, overview(penguins.projectId, other.collectionId));
    expect(answer.status).toBe(400);
    expect((answer.body as unknown as Problem).errors).toEqual([
      { path: 'body.components[1].data_collection_id', message: expect.stringMatching(/this project/) },
    ]);
    const missing = await create(ada.access_token, overview(penguins.projectId, 'no-such-collection'));
    expect(missing.status).toBe(400);
  });

  it('lets only editors of the project create dashboards in it', async () => {
    const shared = await projectWithTable(server, ada.access_token, 'Shared for creating');
    await call(server, 'PUT', `/projects/${shared.projectId}/permissions`, {
      token: ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['bob@example.org'],
        viewers: ['eve@example.org'],
        is_public: false,
      },
    });
    const json = overview(shared.projectId, shared.collectionId);
    expect((await create(bob.access_token, json)).status).toBe(201);
    expect((await create(eve.access_token, json)).body).toMatchObject({ code: 'forbidden' });
    const stranger = await session('stranger@example.org');
    expect((await create(stranger.access_token, json)).status).toBe(404);
    expect((await call(server, 'POST', '/dashboards', { json })).status).toBe(401);
  });

  it('pages, sorts and narrows the rows of a table component', async () => {
    const { body: dashboard } = await create(ada.access_token, overview(penguins.projectId, penguins.collectionId));
    const id = dashboard.dashboard_id;
    const first = await rows(ada.access_token, id, 'measures');
    expect(first.status, first.text).toBe(200);
    // The component's page size, columns and sort apply by default.
    expect(first.body.limit).toBe(10);
    expect(first.body.total).toBe(30);
    expect(first.body.columns.map((c) => c.name)).toEqual(['sample', 'mass']);
    expect(Object.keys(first.body.rows[0] ?? {})).toEqual(['sample', 'mass']);
    const masses = first.body.rows.map((row) => row.mass as number);
    expect(masses).toEqual([...masses].sort((a, b) => b - a));
    expect(first.body.rows).toHaveLength(10);

    const all = await rows(ada.access_token, id, 'measures', '?limit=30&sort=sample:asc');
    expect(all.body.rows.map((row) => row.sample)).toEqual(
      Array.from({ length: 30 }, (_, i) => `S${String(i).padStart(2, '0')}`),
    );
    const second = await rows(ada.access_token, id, 'measures', '?limit=7&skip=7&sort=sample:asc');
    expect(second.body.rows).toEqual(all.body.rows.slice(7, 14));
    const last = await rows(ada.access_token, id, 'measures', '?skip=28&sort=sample');
    expect(last.body.rows.map((row) => row.sample)).toEqual(['S28', 'S29']);

    // A column the component does not show can be neither seen nor sorted by.
    const hidden = await rows(ada.access_token, id, 'measures', '?sort=island:asc');
    expect(hidden.status).toBe(400);
    expect(hidden.body).toMatchObject({ code: 'validation_failed' });
    expect((await rows(ada.access_token, id, 'measures', '?limit=0')).status).toBe(400);
    expect((await rows(ada.access_token, id, 'measures', '?limit=1001')).status).toBe(400);
    // Dashboard filters (not the preview's column filters): none, or ones naming its components.
    expect((await rows(ada.access_token, id, 'measures', '?filters=[]')).body.total).toBe(30);
    const columnFilter = encodeURIComponent(JSON.stringify([{ column: 'mass', op: 'gt', value: 1 }]));
    expect((await rows(ada.access_token, id, 'measures', `?filters=${columnFilter}`)).status).toBe(400);
    expect((await rows(ada.access_token, id, 'measures', '?filters=nope')).status).toBe(400);
    expect((await rows(ada.access_token, id, 'intro')).body).toMatchObject({
      code: 'validation_failed',
      detail: expect.stringMatching(/text component has no rows/),
    });
    expect((await rows(ada.access_token, id, 'nothing')).status).toBe(404);
    expect((await rows(ada.access_token, 'no-such-dashboard', 'measures')).status).toBe(404);
  });

  it('shows every column when the component lists none, and leaves out columns the table no longer has', async () => {
    const json = overview(penguins.projectId, penguins.collectionId);
    json.components = [
      { component_id: 'all', type: 'table', data_collection_id: penguins.collectionId },
      { component_id: 'some', type: 'table', data_collection_id: penguins.collectionId, columns: ['gone', 'island'] },
    ] as never;
    json.layout = [];
    const { body: dashboard } = await create(ada.access_token, json);
    const all = await rows(ada.access_token, dashboard.dashboard_id, 'all');
    expect(all.body.columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['sample', 'mass', 'island', '_run_id', '_file_id']),
    );
    expect(all.body.limit).toBe(25);
    const some = await rows(ada.access_token, dashboard.dashboard_id, 'some');
    expect(some.body.columns.map((c) => c.name)).toEqual(['island']);
    expect(some.body.total).toBe(30);
  });

  it('answers 404 for a table whose data collection was deleted, and goes with its project', async () => {
    const project = await projectWithTable(server, ada.access_token, 'Short-lived');
    const { body: dashboard } = await create(ada.access_token, overview(project.projectId, project.collectionId));
    expect(
      (await call(server, 'DELETE', `/datacollections/${project.collectionId}`, { token: ada.access_token })).status,
    ).toBe(204);
    const gone = await rows(ada.access_token, dashboard.dashboard_id, 'measures');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'not_found' });
    // Saving it again is refused until the component points at data of the project.
    const saved = await call(server, 'PUT', `/dashboards/${dashboard.dashboard_id}`, {
      token: ada.access_token,
      json: { title: 'x', components: dashboard.components, layout: dashboard.layout },
    });
    expect(saved.status).toBe(400);
    expect((await call(server, 'DELETE', `/projects/${project.projectId}`, { token: ada.access_token })).status).toBe(
      204,
    );
    expect(
      (await call(server, 'GET', `/dashboards/${dashboard.dashboard_id}`, { token: ada.access_token })).status,
    ).toBe(404);
  });

  it("shares through the dashboard's own members, without opening the project", async () => {
    const { body: dashboard } = await create(ada.access_token, overview(penguins.projectId, penguins.collectionId));
    const id = dashboard.dashboard_id;
    // Before sharing, bob and eve do not see it at all.
    expect((await call(server, 'GET', `/dashboards/${id}`, { token: bob.access_token })).status).toBe(404);
    expect((await rows(eve.access_token, id, 'measures')).status).toBe(404);
    const shared = await call<Dashboard>(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['BOB@example.org'],
        viewers: [eve.user.user_id],
        is_public: false,
      },
    });
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body.permissions).toEqual({
      owners: [{ user_id: ada.user.user_id, email: 'ada@example.org' }],
      editors: [{ user_id: bob.user.user_id, email: 'bob@example.org' }],
      viewers: [{ user_id: eve.user.user_id, email: 'eve@example.org' }],
    });

    // Eve reads the dashboard and its table, not the project nor its collection.
    const evesView = await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token: eve.access_token });
    expect(evesView.body).toMatchObject({ my_role: 'viewer', project_role: null });
    expect((await rows(eve.access_token, id, 'measures')).body.total).toBe(30);
    expect((await call(server, 'GET', `/projects/${penguins.projectId}`, { token: eve.access_token })).status).toBe(
      404,
    );
    expect(
      (await call(server, 'GET', `/datacollections/${penguins.collectionId}/preview`, { token: eve.access_token }))
        .status,
    ).toBe(404);
    const update = { title: 'Renamed', components: dashboard.components, layout: [] };
    expect((await call(server, 'PUT', `/dashboards/${id}`, { token: eve.access_token, json: update })).status).toBe(
      403,
    );

    // Bob edits the content, but neither shares nor deletes.
    const edited = await call<Dashboard>(server, 'PUT', `/dashboards/${id}`, { token: bob.access_token, json: update });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Renamed', layout: [], my_role: 'editor' });
    expect(
      (
        await call(server, 'PUT', `/dashboards/${id}/permissions`, {
          token: bob.access_token,
          json: { owners: ['bob@example.org'], is_public: true },
        })
      ).body,
    ).toMatchObject({ code: 'forbidden' });
    expect((await call(server, 'DELETE', `/dashboards/${id}`, { token: bob.access_token })).status).toBe(403);

    // Unknown or repeated members are refused by entry; a dashboard keeps an owner.
    const bad = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], editors: ['nobody@example.org', 'ada@example.org'], is_public: false },
    });
    expect((bad.body as unknown as Problem).errors).toEqual([
      { path: 'body.editors[0]', message: expect.stringMatching(/no account/) },
      { path: 'body.editors[1]', message: 'this person is listed twice' },
    ]);
    const ownerless = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: { owners: [], is_public: false },
    });
    expect((ownerless.body as unknown as Problem).errors).toContainEqual({
      path: 'body.owners',
      message: 'a dashboard needs at least one owner',
    });

    // The admin may do everything; the owner deletes it.
    expect(
      (await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token: admin.access_token })).body.my_role,
    ).toBe('admin');
    expect((await call(server, 'DELETE', `/dashboards/${id}`, { token: ada.access_token })).status).toBe(204);
    expect((await call(server, 'GET', `/dashboards/${id}`, { token: ada.access_token })).status).toBe(404);
  });

  it('lists the dashboards a caller may read, newest first, by project', async () => {
    const project = await projectWithTable(server, ada.access_token, 'Listed');
    const ids: string[] = [];
    for (const title of ['First', 'Second', 'Third']) {
      ids.push(
        (await create(ada.access_token, { ...overview(project.projectId, project.collectionId), title })).body
          .dashboard_id,
      );
    }
    const own = await call<{ items: Dashboard[]; total: number }>(
      server,
      'GET',
      `/dashboards?project_id=${project.projectId}&limit=2`,
      { token: ada.access_token },
    );
    expect(own.body.total).toBe(3);
    expect(own.body.items.map((d) => d.title)).toEqual(['Third', 'Second']);
    const rest = await call<{ items: Dashboard[] }>(
      server,
      'GET',
      `/dashboards?project_id=${project.projectId}&skip=2`,
      {
        token: ada.access_token,
      },
    );
    expect(rest.body.items.map((d) => d.title)).toEqual(['First']);

    // Eve, a viewer of one of them, sees just that one; a project viewer sees all three.
    await call(server, 'PUT', `/dashboards/${ids[1]}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], viewers: ['eve@example.org'], is_public: false },
    });
    const eves = await call<{ items: Dashboard[]; total: number }>(
      server,
      'GET',
      `/dashboards?project_id=${project.projectId}`,
      { token: eve.access_token },
    );
    expect(eves.body.items.map((d) => d.dashboard_id)).toEqual([ids[1]]);
    await call(server, 'PUT', `/projects/${project.projectId}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], viewers: ['bob@example.org'], is_public: false },
    });
    const bobs = await call<{ items: Dashboard[] }>(server, 'GET', `/dashboards?project_id=${project.projectId}`, {
      token: bob.access_token,
    });
    expect(bobs.body.items.map((d) => d.my_role)).toEqual(['viewer', 'viewer', 'viewer']);
    const admins = await call<{ total: number }>(server, 'GET', '/dashboards', { token: admin.access_token });
    expect(admins.body.total).toBeGreaterThanOrEqual(3);
    expect((await call(server, 'GET', '/dashboards?limit=201', { token: ada.access_token })).status).toBe(400);
    expect((await call(server, 'GET', '/dashboards')).status).toBe(401);
  });

  it('keeps one whole version when two editors save at once', async () => {
    const { body: dashboard } = await create(ada.access_token, overview(penguins.projectId, penguins.collectionId));
    const versions = ['A', 'B'].map((title) => ({
      title,
      components: [{ component_id: `text-${title}`, type: 'text', markdown: title }],
      layout: [{ component_id: `text-${title}`, x: 0, y: 0, w: 6, h: 1 }],
    }));
    const answers = await Promise.all(
      versions.map((json) =>
        call<Dashboard>(server, 'PUT', `/dashboards/${dashboard.dashboard_id}`, { token: ada.access_token, json }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const final = await call<Dashboard>(server, 'GET', `/dashboards/${dashboard.dashboard_id}`, {
      token: ada.access_token,
    });
    const title = final.body.title;
    expect(['A', 'B']).toContain(title);
    expect(final.body.components).toEqual([{ component_id: `text-${title}`, type: 'text', markdown: title }]);
    expect(final.body.layout).toEqual([{ component_id: `text-${title}`, x: 0, y: 0, w: 6, h: 1 }]);
  });
});

describeEachDialect('public dashboards in public mode', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let stranger: Session;
  let publicId: string;
  let privateId: string;
  let projectId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    server = started.server;
    ada = await started.session('ada@example.org');
    stranger = await started.session('stranger@example.org');
    const project = await projectWithTable(server, ada.access_token, 'Private project');
    projectId = project.projectId;
    const dashboard = async (is_public: boolean) =>
      (
        await call<Dashboard>(server, 'POST', '/dashboards', {
          token: ada.access_token,
          json: overview(project.projectId, project.collectionId, { is_public }),
        })
      ).body.dashboard_id;
    publicId = await dashboard(true);
    privateId = await dashboard(false);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('lets anyone, anonymous included, read a public dashboard and its tables, and nothing else of the project', async () => {
    for (const token of [undefined, stranger.access_token]) {
      const options = token ? { token } : {};
      const dashboard = await call<Dashboard>(server, 'GET', `/dashboards/${publicId}`, options);
      expect(dashboard.status).toBe(200);
      expect(dashboard.body).toMatchObject({ my_role: 'public', project_role: null });
      const page = await call<Rows>(server, 'GET', `/dashboards/${publicId}/components/measures/rows`, options);
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(30);
      expect((await call(server, 'GET', `/dashboards/${privateId}`, options)).status).toBe(404);
      expect((await call(server, 'GET', `/dashboards/${privateId}/components/measures/rows`, options)).status).toBe(
        404,
      );
      expect((await call(server, 'GET', `/projects/${projectId}`, options)).status).toBe(404);
      const list = await call<{ items: Dashboard[] }>(server, 'GET', '/dashboards', options);
      expect(list.body.items.map((d) => d.dashboard_id)).toEqual([publicId]);
    }
    // Reading is all: anonymous writes need a sign-in, a stranger's are forbidden.
    const update = { title: 'Defaced' };
    expect((await call(server, 'PUT', `/dashboards/${publicId}`, { json: update })).status).toBe(401);
    expect(
      (await call(server, 'PUT', `/dashboards/${publicId}`, { token: stranger.access_token, json: update })).status,
    ).toBe(403);
    expect((await call(server, 'DELETE', `/dashboards/${publicId}`, { token: stranger.access_token })).status).toBe(
      403,
    );
  });
});
