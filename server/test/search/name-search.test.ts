import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { serverWithPeople } from '../dashboards/analytics-table.js';

interface Listed {
  items: { name?: string; title?: string; project_name?: string | null }[];
  total: number;
}

/** `q` of GET /projects and GET /dashboards, and the dashboards' `sort`: one policy for every caller. */
describeEachDialect('search by name', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let eve: Session;

  const project = async (token: string, name: string, is_public: boolean) => {
    const answer = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token,
      json: { name, is_public },
    });
    expect(answer.status).toBe(201);
    return answer.body.project_id;
  };
  const dashboard = async (token: string, project_id: string, title: string) => {
    const answer = await call(server, 'POST', '/dashboards', { token, json: { project_id, title } });
    expect(answer.status).toBe(201);
  };
  const names = async (path: string, token?: string) => {
    const answer = await call<Listed>(server, 'GET', path, token === undefined ? {} : { token });
    expect(answer.status).toBe(200);
    return answer.body.items.map((item) => item.name ?? item.title);
  };

  beforeAll(async () => {
    const started = await serverWithPeople(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    server = started.server;
    ada = await started.session('ada@example.org');
    eve = await started.session('eve@example.org');
    // Public projects are published by someone; another person than the searchers.
    admin = await started.session('curator@example.org');
    const secret = await project(ada.access_token, 'Penguin secrets', false);
    const open = await project(admin.access_token, 'Penguin census', true);
    await project(ada.access_token, '50% done', false);
    await project(ada.access_token, '50 and more', false);
    await dashboard(ada.access_token, secret, 'Penguin weights');
    await dashboard(admin.access_token, open, 'Penguin colonies');
    await dashboard(admin.access_token, open, 'Adelie counts');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('finds projects whose name contains the text, any case', async () => {
    expect((await names('/projects?q=PENGUIN', ada.access_token)).sort()).toEqual([
      'Penguin census',
      'Penguin secrets',
    ]);
    expect(await names('/projects?q=%20secret%20', ada.access_token)).toEqual(['Penguin secrets']);
  });

  it('reads % and _ as themselves, not as wildcards', async () => {
    expect(await names(`/projects?q=${encodeURIComponent('50%')}`, ada.access_token)).toEqual(['50% done']);
    expect(await names('/projects?q=0_', ada.access_token)).toEqual([]);
  });

  it('never finds what the caller may not see: another user, anonymous visitors', async () => {
    expect(await names('/projects?q=penguin', eve.access_token)).toEqual(['Penguin census']);
    expect(await names('/projects?q=penguin')).toEqual(['Penguin census']);
    expect(await names('/dashboards?q=penguin', eve.access_token)).toEqual(['Penguin colonies']);
    expect(await names('/dashboards?q=penguin')).toEqual(['Penguin colonies']);
    const total = await call<Listed>(server, 'GET', '/dashboards?q=weights', { token: eve.access_token });
    expect(total.body).toMatchObject({ items: [], total: 0 });
  });

  it('finds every project for an admin, private ones of others included', async () => {
    const row = await server.context.users.createAccount(
      { email: 'root@example.org', password: null, role: 'admin' },
      { via: 'admin' },
    );
    const root = await server.context.sessions.start(row);
    expect((await names('/projects?q=penguin', root.access_token)).sort()).toEqual([
      'Penguin census',
      'Penguin secrets',
    ]);
    expect((await names('/dashboards?q=weights', root.access_token)).sort()).toEqual(['Penguin weights']);
  });

  it('finds dashboards by title and names their project', async () => {
    const answer = await call<Listed>(server, 'GET', '/dashboards?q=penguin&sort=title', { token: ada.access_token });
    expect(answer.body.items.map(({ title, project_name }) => ({ title, project_name }))).toEqual([
      { title: 'Penguin colonies', project_name: 'Penguin census' },
      { title: 'Penguin weights', project_name: 'Penguin secrets' },
    ]);
  });

  it('names no project to the reader of a dashboard shared alone', async () => {
    const listed = await call<Listed & { items: { dashboard_id: string }[] }>(server, 'GET', '/dashboards?q=weights', {
      token: ada.access_token,
    });
    const id = listed.body.items[0]?.dashboard_id ?? '';
    const shared = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: { owners: [ada.user.user_id], viewers: ['eve@example.org'], is_public: false },
    });
    expect(shared.status, shared.text).toBe(200);
    const seen = await call<Listed>(server, 'GET', '/dashboards?q=weights', { token: eve.access_token });
    expect(seen.body.items.map(({ title, project_name }) => ({ title, project_name }))).toEqual([
      { title: 'Penguin weights', project_name: null },
    ]);
    const revoked = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: { owners: [ada.user.user_id], is_public: false },
    });
    expect(revoked.status, revoked.text).toBe(200);
  });

  it('sorts dashboards by title, by project, by last change', async () => {
    expect(await names('/dashboards?sort=title', ada.access_token)).toEqual([
      'Adelie counts',
      'Penguin colonies',
      'Penguin weights',
    ]);
    expect(await names('/dashboards?sort=project', ada.access_token)).toEqual([
      'Adelie counts',
      'Penguin colonies',
      'Penguin weights',
    ]);
    const found = await call<{ items: { dashboard_id: string }[] }>(server, 'GET', '/dashboards?q=adelie', {
      token: admin.access_token,
    });
    const id = found.body.items[0]?.dashboard_id;
    const current = await call(server, 'GET', `/dashboards/${id}`, { token: admin.access_token });
    const changed = await call(server, 'PUT', `/dashboards/${id}`, {
      token: admin.access_token,
      json: { title: 'Adelie counts, again' },
      headers: { 'if-match': current.headers.get('etag') ?? '' },
    });
    expect(changed.status).toBe(200);
    expect((await names('/dashboards?sort=updated', ada.access_token))[0]).toBe('Adelie counts, again');
  });

  it('documents q and sort in the OpenAPI document', async () => {
    const document = await call<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>(
      server,
      'GET',
      '/openapi.json',
    );
    const parameters = (suffix: string) =>
      Object.entries(document.body.paths)
        .find(([path]) => path.endsWith(suffix))?.[1]
        .get?.parameters?.map((parameter) => parameter.name) ?? [];
    expect(parameters('/projects')).toContain('q');
    expect(parameters('/dashboards')).toEqual(expect.arrayContaining(['q', 'sort']));
  });

  describe('refuses a bad search', () => {
    it.each([
      ['/projects?q=', 'querystring.q'],
      [`/projects?q=${'x'.repeat(201)}`, 'querystring.q'],
      ['/dashboards?q=%20%20', 'querystring.q'],
      ['/dashboards?sort=owner', 'querystring.sort'],
    ])('%s', async (path, field) => {
      const answer = await call(server, 'GET', path, { token: ada.access_token });
      expect(answer.status).toBe(400);
      expect((answer.body.errors as { path: string }[]).map((error) => error.path)).toContain(field);
    });
  });
});
