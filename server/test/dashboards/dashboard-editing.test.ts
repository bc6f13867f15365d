import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Saving with `If-Match` (412 when someone saved in between, exactly one of two racing saves
 * wins), duplicating, and the layout rules (docs/architecture.md "Dashboards"; docs/dashboards.md "Editing").
 */

interface Dashboard {
  dashboard_id: string;
  project_id: string;
  title: string;
  description: string;
  is_public: boolean;
  my_role: string;
  permissions: { owners: { email: string }[]; editors: unknown[]; viewers: unknown[] };
  components: Record<string, unknown>[];
  layout: Record<string, unknown>[];
}
interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('editing dashboards', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let eve: Session;
  let projectId: string;
  let collectionId: string;

  const content = (title: string) => ({
    title,
    description: 'Body measurements',
    components: [
      { component_id: 'intro', type: 'text', markdown: `# ${title}` },
      { component_id: 'mass', type: 'figure', chart: 'histogram', data_collection_id: collectionId, x: 'mass' },
      { component_id: 'rows', type: 'table', data_collection_id: collectionId, columns: ['sample', 'mass'] },
    ],
    layout: [
      { component_id: 'intro', x: 0, y: 0, w: 12, h: 2 },
      { component_id: 'mass', x: 0, y: 2, w: 6, h: 6 },
      { component_id: 'rows', x: 6, y: 2, w: 6, h: 6 },
    ],
  });
  const create = async (token: string, title = 'Penguins') => {
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token,
      json: { project_id: projectId, ...content(title) },
    });
    expect(created.status, created.text).toBe(201);
    return created;
  };
  const get = (token: string | undefined, id: string) =>
    call<Dashboard>(server, 'GET', `/dashboards/${id}`, token === undefined ? {} : { token });
  const put = (token: string, id: string, json: unknown, ifMatch?: string) =>
    call<Dashboard & Problem>(server, 'PUT', `/dashboards/${id}`, {
      token,
      json,
      ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
    });

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    bob = await people.session('bob@example.org');
    eve = await people.session('eve@example.org');
    ({ projectId, collectionId } = await projectWithTable(server, ada.access_token, 'Penguins'));
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], viewers: ['bob@example.org'], is_public: false },
    });
    expect(shared.status, shared.text).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('sends an ETag and saves with If-Match only while nobody saved since', async () => {
    const created = await create(ada.access_token);
    const id = created.body.dashboard_id;
    const first = created.headers.get('etag');
    expect(first).toMatch(/^"\d+"$/);
    expect((await get(ada.access_token, id)).headers.get('etag')).toBe(first);

    const saved = await put(ada.access_token, id, content('Second'), first ?? '');
    expect(saved.status, saved.text).toBe(200);
    const second = saved.headers.get('etag');
    expect(second).not.toBe(first);
    expect((await get(ada.access_token, id)).headers.get('etag')).toBe(second);

    // A save from the first version now fails, and leaves the second as it was.
    const stale = await put(ada.access_token, id, content('Stale'), first ?? '');
    expect(stale.status, stale.text).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    expect(stale.body.detail).toMatch(/reload/);
    expect((await get(ada.access_token, id)).body.title).toBe('Second');
    // Weak tags never match (strong comparison); a list matches if any member does; `*` always.
    expect((await put(ada.access_token, id, content('Weak'), `W/${second}`)).status).toBe(412);
    expect((await put(ada.access_token, id, content('Listed'), `"nope", ${second}`)).status).toBe(200);
    expect((await put(ada.access_token, id, content('Any'), '*')).status).toBe(200);
    // Without If-Match the last save wins, as before ETags existed.
    const overwrite = await put(ada.access_token, id, content('Overwritten'));
    expect(overwrite.status, overwrite.text).toBe(200);
    expect(overwrite.body.title).toBe('Overwritten');
  });

  it('lets exactly one of two concurrent saves from the same ETag win', async () => {
    for (let round = 0; round < 4; round++) {
      const created = await create(ada.access_token, `Race ${round}`);
      const id = created.body.dashboard_id;
      const etag = created.headers.get('etag') ?? '';
      const answers = await Promise.all([
        put(ada.access_token, id, content(`left ${round}`), etag),
        put(ada.access_token, id, content(`right ${round}`), etag),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = answers.find((answer) => answer.status === 200);
      const now = await get(ada.access_token, id);
      expect(now.body.title).toBe(winner?.body.title);
      expect(now.headers.get('etag')).toBe(winner?.headers.get('etag'));
    }
  });

  it("refuses a viewer's save and a save by someone who cannot see the dashboard", async () => {
    const { body } = await create(ada.access_token);
    const viewer = await put(bob.access_token, body.dashboard_id, content('Mine'));
    expect(viewer.status, viewer.text).toBe(403);
    expect(viewer.body.code).toBe('forbidden');
    expect((await put(eve.access_token, body.dashboard_id, content('Mine'))).status).toBe(404);
    expect((await get(ada.access_token, body.dashboard_id)).body.title).toBe('Penguins');
  });

  it('duplicates for any reader: a private copy they own, content and layout copied', async () => {
    const original = await create(ada.access_token, 'Field season');
    const id = original.body.dashboard_id;
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${id}/duplicate`, {
      token: bob.access_token,
      json: {},
    });
    expect(copy.status, copy.text).toBe(201);
    expect(copy.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(copy.body.dashboard_id).not.toBe(id);
    expect(copy.body).toMatchObject({
      project_id: projectId,
      title: 'Field season (copy)',
      description: original.body.description,
      is_public: false,
      my_role: 'owner',
      permissions: { owners: [{ email: 'bob@example.org' }], editors: [], viewers: [] },
      components: original.body.components,
      layout: original.body.layout,
    });
    // Bob reads the project, so his copy may show anything of it; the original is untouched.
    const widened = await put(bob.access_token, copy.body.dashboard_id, {
      ...content('Mine'),
      components: [{ component_id: 'all', type: 'table', data_collection_id: collectionId }],
      layout: [],
    });
    expect(widened.status, widened.text).toBe(200);
    expect((await get(ada.access_token, id)).body.components).toEqual(original.body.components);

    const titled = await call<Dashboard>(server, 'POST', `/dashboards/${id}/duplicate`, {
      token: ada.access_token,
      json: { title: 'Mine now' },
    });
    expect(titled.status, titled.text).toBe(201);
    expect(titled.body.title).toBe('Mine now');
    const noBody = await call<Dashboard>(server, 'POST', `/dashboards/${id}/duplicate`, { token: ada.access_token });
    expect(noBody.status, noBody.text).toBe(201);
  });

  it('answers 404 to a duplicate of a dashboard one cannot read, 401 without a token, 400 on bad titles', async () => {
    const { body } = await create(ada.access_token);
    const path = `/dashboards/${body.dashboard_id}/duplicate`;
    expect((await call(server, 'POST', path, { token: eve.access_token, json: {} })).status).toBe(404);
    expect(
      (await call(server, 'POST', '/dashboards/nope/duplicate', { token: ada.access_token, json: {} })).status,
    ).toBe(404);
    expect((await call(server, 'POST', path, { json: {} })).status).toBe(401);
    for (const json of [{ title: '' }, { title: 'x'.repeat(101) }, { name: 'x' }]) {
      const refused = await call<Problem>(server, 'POST', path, { token: ada.access_token, json });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
    }
    const listed = await call<{ total: number }>(server, 'GET', `/dashboards?project_id=${projectId}`, {
      token: eve.access_token,
    });
    expect(listed.body.total).toBe(0);
  });

  it('refuses overlapping layout entries and entries outside the 12 columns, saying which', async () => {
    const { body } = await create(ada.access_token);
    const base = content('Layout');
    const cases: [unknown[], string, RegExp][] = [
      [
        [
          { component_id: 'mass', x: 0, y: 0, w: 6, h: 4 },
          { component_id: 'rows', x: 5, y: 3, w: 6, h: 4 },
        ],
        'body.layout[1]',
        /'rows' overlaps 'mass' \(layout\[0\]\)/,
      ],
      [[{ component_id: 'rows', x: 8, y: 0, w: 6, h: 4 }], 'body.layout[0].w', /12 columns/],
      [[{ component_id: 'rows', x: 12, y: 0, w: 1, h: 4 }], 'body.layout[0].x', /11/],
      [[{ component_id: 'rows', x: -1, y: 0, w: 1, h: 4 }], 'body.layout[0].x', /0/],
    ];
    for (const [layout, path, message] of cases) {
      const refused = await put(ada.access_token, body.dashboard_id, { ...base, layout });
      expect(refused.status, refused.text).toBe(400);
      const problem = refused.body.errors?.find((error) => error.path === path);
      expect(problem?.message, refused.text).toMatch(message);
    }
    // Touching edges are no overlap.
    const touching = await put(ada.access_token, body.dashboard_id, {
      ...base,
      layout: [
        { component_id: 'mass', x: 0, y: 0, w: 6, h: 4 },
        { component_id: 'rows', x: 6, y: 0, w: 6, h: 4 },
        { component_id: 'intro', x: 0, y: 4, w: 12, h: 1 },
      ],
    });
    expect(touching.status, touching.text).toBe(200);
  });
});
