import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Dashboards as YAML (docs/dashboards.md "Dashboards as YAML"): export → import gives an equal
 * dashboard; every problem in a file comes back with its path, line and column.
 */

interface Dashboard {
  dashboard_id: string;
  project_id: string;
  title: string;
  description: string;
  my_role: string;
  components: Record<string, unknown>[];
  layout: Record<string, unknown>[];
}
interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; message: string; line?: number; column?: number }[];
}

describeEachDialect('dashboards as YAML', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let eve: Session;
  let projectId: string;
  let otherProjectId: string;
  let collectionId: string;

  const everyKind = (collection: string) => [
    { component_id: 'intro', type: 'text', title: 'About', markdown: '# Penguins\n\nThree *species*.' },
    {
      component_id: 'mass',
      type: 'figure',
      title: 'Mass by species',
      data_collection_id: collection,
      chart: 'box',
      x: 'species',
      y: 'mass',
      log_y: true,
    },
    { component_id: 'mean', type: 'card', data_collection_id: collection, column: 'mass', agg: 'mean' },
    {
      component_id: 'island',
      type: 'interactive',
      data_collection_id: collection,
      widget: 'multiselect',
      column: 'island',
    },
    {
      component_id: 'rows',
      type: 'table',
      data_collection_id: collection,
      columns: ['sample', 'mass'],
      page_size: 10,
      sort: [{ column: 'mass', direction: 'desc' }],
    },
  ];
  const layout = [
    { component_id: 'intro', x: 0, y: 0, w: 9, h: 2 },
    { component_id: 'mean', x: 9, y: 0, w: 3, h: 2 },
    { component_id: 'island', x: 0, y: 2, w: 3, h: 4 },
    { component_id: 'mass', x: 3, y: 2, w: 9, h: 6 },
  ];
  const importYaml = (token: string | undefined, yaml: string, query = '') =>
    call<Dashboard & Problem>(server, 'POST', `/dashboards/import${query}`, {
      ...(token === undefined ? {} : { token }),
      body: yaml,
      headers: { 'content-type': 'application/yaml' },
    });
  const problemAt = (answer: { body: Problem }, path: string) =>
    answer.body.errors?.find((error) => error.path === path);

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    bob = await people.session('bob@example.org');
    eve = await people.session('eve@example.org');
    ({ projectId, collectionId } = await projectWithTable(server, ada.access_token, 'Penguins'));
    otherProjectId = (await projectWithTable(server, ada.access_token, 'Elsewhere')).projectId;
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

  it('exports YAML that imports as an equal dashboard, collections named by tag', async () => {
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: projectId,
        title: 'Field season',
        description: 'Round trip',
        components: everyKind(collectionId),
        layout,
      },
    });
    expect(created.status, created.text).toBe(201);
    const exported = await call(server, 'GET', `/dashboards/${created.body.dashboard_id}/yaml`, {
      token: ada.access_token,
    });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(exported.text).toContain(`project_id: ${projectId}`);
    // The project's only collection is tagged `t`: the file names it so, not by its id.
    expect(exported.text).toContain('data_collection_id: t\n');
    expect(exported.text).not.toContain(collectionId);

    for (const send of [
      () => importYaml(ada.access_token, exported.text),
      () =>
        call<Dashboard>(server, 'POST', '/dashboards/import', {
          token: ada.access_token,
          json: { yaml: exported.text },
        }),
    ]) {
      const imported = await send();
      expect(imported.status, imported.text).toBe(201);
      expect(imported.headers.get('etag')).toMatch(/^"\d+"$/);
      expect(imported.body.dashboard_id).not.toBe(created.body.dashboard_id);
      const {
        dashboard_id: _new,
        created_at: _c,
        updated_at: _u,
        ...copy
      } = imported.body as Dashboard & Record<string, unknown>;
      const {
        dashboard_id: _old,
        created_at: _c2,
        updated_at: _u2,
        ...original
      } = created.body as Dashboard & Record<string, unknown>;
      expect(copy).toEqual(original);
    }
    // A viewer may export too; the file then names collections by id, which he may not browse.
    const viewers = await call(server, 'GET', `/dashboards/${created.body.dashboard_id}/yaml`, {
      token: bob.access_token,
    });
    expect(viewers.status).toBe(200);
    expect(
      (await call(server, 'GET', `/dashboards/${created.body.dashboard_id}/yaml`, { token: eve.access_token })).status,
    ).toBe(404);
  });

  it('imports into the project_id parameter, which wins over the file', async () => {
    const yaml = `project_id: ${otherProjectId}\ntitle: Moved\ncomponents:\n  - component_id: rows\n    type: table\n    data_collection_id: t\n`;
    const imported = await importYaml(ada.access_token, yaml, `?project_id=${projectId}`);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.project_id).toBe(projectId);
    expect(imported.body.components[0]).toMatchObject({ data_collection_id: collectionId });
    const fromFile = await importYaml(ada.access_token, yaml);
    expect(fromFile.status, fromFile.text).toBe(201);
    expect(fromFile.body.project_id).toBe(otherProjectId);
    expect(fromFile.body.components[0]?.data_collection_id).not.toBe(collectionId);
  });

  it('names the line and column of every problem in a file', async () => {
    const cases: [string, string, RegExp, number, number][] = [
      [
        'title: X\ncomponents:\n  - component_id: a\n    type: text\n    markdown: hi\n    colour: red\n',
        'components[0].colour',
        /unknown field/,
        6,
        13,
      ],
      [
        'title: X\ncomponents:\n  - component_id: rows\n    type: table\n    data_collection_id: t\n    page_size: many\n',
        'components[0].page_size',
        /number/,
        6,
        16,
      ],
      ['title: X\nlayout: {x: 1\n', '', /./, 3, 1],
      ['title: X\nstyle: dark\n', 'style', /unknown field/, 2, 8],
      ['title: [1, 2]\n', 'title', /string/, 1, 8],
      [
        'title: X\ncomponents:\n  - component_id: rows\n    type: table\n    data_collection_id: nope\n',
        'components[0].data_collection_id',
        /nor this tag/,
        5,
        25,
      ],
      [
        'title: X\ncomponents:\n  - component_id: f\n    type: figure\n    chart: histogram\n    data_collection_id: t\n    x: wingspan\n',
        'components[0].x',
        /wingspan|column/,
        7,
        8,
      ],
      [
        'title: X\ncomponents:\n  - {component_id: a, type: text, markdown: a}\n  - {component_id: b, type: text, markdown: b}\nlayout:\n  - {component_id: a, x: 0, y: 0, w: 6, h: 2}\n  - {component_id: b, x: 4, y: 1, w: 6, h: 2}\n',
        'layout[1]',
        /'b' overlaps 'a'/,
        7,
        5,
      ],
    ];
    for (const [yaml, path, message, line, column] of cases) {
      const refused = await importYaml(ada.access_token, yaml, `?project_id=${projectId}`);
      expect(refused.status, `${yaml}\n${refused.text}`).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
      const problem = path === '' ? refused.body.errors?.[0] : problemAt(refused, path);
      expect(problem, refused.text).toMatchObject({ line, column });
      expect(problem?.message).toMatch(message);
    }
    const noProject = await importYaml(ada.access_token, 'title: X\n');
    expect(noProject.status).toBe(400);
    expect(problemAt(noProject, 'project_id')?.message).toMatch(/query parameter/);
    const titles = await call<{ items: { title: string }[] }>(
      server,
      'GET',
      `/dashboards?project_id=${projectId}&limit=200`,
      {
        token: ada.access_token,
      },
    );
    expect(titles.body.items.map((item) => item.title)).not.toContain('X');
  });

  it('reports every problem of a file at once, each with its path and line', async () => {
    const yaml = [
      'title: Many problems',
      'tabs:',
      '  - {tab_id: main, title: Main, color: red}',
      'components:',
      '  - {component_id: a, type: figure, chart: nope, data_collection_id: t, x: mass}',
      '  - {component_id: b, type: text, markdown: hi, tab_id: elsewhere}',
      '  - {component_id: c, type: card, data_collection_id: nope, column: mass, agg: mean}',
      '  - {component_id: d, type: card, data_collection_id: t, column: wingspan, agg: mean}',
      'layout:',
      '  - {component_id: ghost, x: 0, y: 0, w: 6, h: 2}',
      '',
    ].join('\n');
    const refused = await importYaml(ada.access_token, yaml, `?project_id=${projectId}`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.detail).toMatch(/6 problems/);
    const expected: [string, RegExp, number][] = [
      ['tabs[0].color', /#rrggbb/, 3],
      ['components[0].chart', /one of/, 5],
      ['components[1].tab_id', /no tab has this id \(tabs: main\)/, 6],
      ['components[2].data_collection_id', /nor this tag/, 7],
      ['components[3].column', /wingspan|column/, 8],
      ['layout[0].component_id', /no component has this id/, 10],
    ];
    for (const [path, message, line] of expected) {
      const problem = problemAt(refused, path);
      expect(problem, `${path} in ${refused.text}`).toMatchObject({ line });
      expect(problem?.message).toMatch(message);
    }
    // In the order of the file, one problem per place.
    expect(refused.body.errors?.map((error) => error.path)).toEqual(expected.map(([path]) => path));
    // Without a project, the file's own problems still all come back, with the missing project.
    const noProject = await importYaml(ada.access_token, yaml);
    expect(noProject.status).toBe(400);
    expect(noProject.body.errors?.map((error) => error.path)).toEqual([
      'project_id',
      'tabs[0].color',
      'components[0].chart',
      'components[1].tab_id',
      'layout[0].component_id',
    ]);
  });

  it('imports only for editors of the project: 404 for outsiders, 403 for viewers, 401 anonymous', async () => {
    const yaml = 'title: Mine\n';
    expect((await importYaml(eve.access_token, yaml, `?project_id=${projectId}`)).status).toBe(404);
    const viewer = await importYaml(bob.access_token, yaml, `?project_id=${projectId}`);
    expect(viewer.status, viewer.text).toBe(403);
    expect((await importYaml(undefined, yaml, `?project_id=${projectId}`)).status).toBe(401);
    expect((await importYaml(ada.access_token, yaml, '?project_id=nope')).status).toBe(404);
  });

  it("imports docs/dashboards.md's worked example", async () => {
    const docs = await readFile(new URL('../../../docs/dashboards.md', import.meta.url), 'utf8');
    const example = docs.split('## Dashboards as YAML')[1]?.split('```yaml\n')[1]?.split('```')[0] ?? '';
    expect(example).toContain('component_id: species');
    // The example's collection is tagged `penguins`; this project's is `t`, with the same columns.
    const yaml = example.replaceAll('data_collection_id: penguins', 'data_collection_id: t');
    const imported = await importYaml(ada.access_token, yaml, `?project_id=${projectId}`);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.components.map((component) => component.type)).toEqual([
      'text',
      'interactive',
      'figure',
      'table',
    ]);
  });

  it('publishes the JSON Schema of the file, no token needed', async () => {
    type ObjectSchema = { properties: Record<string, unknown>; additionalProperties: boolean };
    const schema = await call<{ $ref: string; $defs: Record<string, ObjectSchema> }>(
      server,
      'GET',
      '/dashboards/schema',
    );
    expect(schema.status).toBe(200);
    expect(schema.headers.get('content-type')).toMatch(/^application\/schema\+json/);
    const file = schema.body.$defs[schema.body.$ref.replace('#/$defs/', '')];
    expect(Object.keys(file?.properties ?? {})).toEqual([
      'project_id',
      'title',
      'description',
      'tabs',
      'components',
      'layout',
      'colors',
    ]);
    expect(file?.additionalProperties).toBe(false);
    expect(Object.keys(schema.body.$defs)).toEqual(
      expect.arrayContaining([
        'FigureComponent',
        'CardComponent',
        'InteractiveComponent',
        'TableComponent',
        'TextComponent',
        'LayoutItem',
      ]),
    );
  });
});
