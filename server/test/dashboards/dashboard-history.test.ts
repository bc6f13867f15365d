import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface Revision {
  revision: number;
  saved_at: string;
  saved_by: string | null;
  saved_by_email: string | null;
  summary: Record<string, unknown>;
}

const text = (id: string, markdown: string) => ({ component_id: id, type: 'text', markdown });
const place = (id: string, y: number) => ({ component_id: id, x: 0, y, w: 6, h: 2 });

describeEachDialect('dashboard history', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let owner: Session;
  let editor: Session;
  let viewer: Session;
  let stranger: Session;
  let projectId: string;

  const newDashboard = async () => {
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: owner.access_token,
      json: {
        project_id: projectId,
        title: 'Survey',
        components: [text('intro', '# Hello')],
        layout: [place('intro', 0)],
      },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.dashboard_id;
  };
  const save = async (id: string, session: Session, body: Record<string, unknown>) => {
    const answer = await call(server, 'PUT', `/dashboards/${id}`, { token: session.access_token, json: body });
    expect(answer.status, answer.text).toBe(200);
    return answer;
  };
  const revisions = (id: string, session: Session, query = '') =>
    call<{ items: Revision[]; total: number }>(server, 'GET', `/dashboards/${id}/revisions${query}`, {
      token: session.access_token,
    });

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_DASHBOARD_REVISIONS_KEPT: '4' });
    admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    editor = await createUser(server, admin.access_token, 'editor@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    stranger = await createUser(server, admin.access_token, 'stranger@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'history' },
    });
    projectId = project.body.project_id;
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: owner.access_token,
      json: {
        owners: [owner.user.user_id],
        editors: ['editor@example.org'],
        viewers: ['viewer@example.org'],
        is_public: false,
      },
    });
    expect(shared.status, shared.text).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('keeps every save with who, when and what changed, and restores one as a new revision', async () => {
    const id = await newDashboard();
    await save(id, editor, {
      title: 'Survey',
      components: [text('intro', '# Hello'), text('notes', 'Notes')],
      layout: [place('intro', 0), place('notes', 2)],
    });
    await save(id, owner, {
      title: 'Survey 2024',
      components: [text('intro', '# Hello, 2024'), text('notes', 'Notes')],
      layout: [place('notes', 0), place('intro', 2)],
    });
    // Sharing is not a save of the content: it leaves no revision (the counter moves on).
    const sharing = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: owner.access_token,
      json: { owners: [owner.user.user_id], editors: [], viewers: [], is_public: false },
    });
    expect(sharing.status, sharing.text).toBe(200);

    const list = await revisions(id, owner);
    expect(list.status, list.text).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.items.map((item) => item.revision)).toEqual([3, 2, 1]);
    const [third, second, first] = list.body.items as [Revision, Revision, Revision];
    expect(first).toMatchObject({ saved_by_email: 'owner@example.org', summary: { created: true } });
    expect(second).toMatchObject({
      saved_by: editor.user.user_id,
      saved_by_email: 'editor@example.org',
      summary: { components_added: ['notes'], components_removed: [], layout_changed: true, title_changed: false },
    });
    expect(third.summary).toMatchObject({ title_changed: true, components_changed: ['intro'], layout_changed: true });
    const paged = await revisions(id, owner, '?limit=1&skip=1');
    expect(paged.body.items.map((item) => item.revision)).toEqual([2]);

    const old = await call<{ title: string; components: { component_id: string }[]; revision: Revision }>(
      server,
      'GET',
      `/dashboards/${id}/revisions/1`,
      { token: editor.access_token },
    );
    expect(old.status, old.text).toBe(200);
    expect(old.body.title).toBe('Survey');
    expect(old.body.components.map((component) => component.component_id)).toEqual(['intro']);
    expect(old.body.revision.revision).toBe(1);
    const yaml = await call(server, 'GET', `/dashboards/${id}/yaml?revision=1`, { token: editor.access_token });
    expect(yaml.status).toBe(200);
    expect(yaml.text).toContain('# Hello');
    expect(yaml.text).not.toContain('notes');

    const restored = await call<{ title: string; components: unknown[] }>(
      server,
      'POST',
      `/dashboards/${id}/revisions/1/restore`,
      { token: editor.access_token },
    );
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.title).toBe('Survey');
    expect(restored.body.components).toHaveLength(1);
    const current = await call(server, 'GET', `/dashboards/${id}`, { token: owner.access_token });
    expect(current.headers.get('etag')).toBe(restored.headers.get('etag'));
    const after = await revisions(id, owner);
    expect(after.body.items.map((item) => item.revision)).toEqual([5, 3, 2, 1]);
    expect(after.body.items[0]?.summary).toMatchObject({
      restored_from: 1,
      components_removed: ['notes'],
      title_changed: true,
    });
    expect((await call(server, 'GET', `/dashboards/${id}/revisions/4`, { token: owner.access_token })).status).toBe(
      404,
    );
  });

  it('shows the history to editors and owners only; viewers are refused, strangers find nothing', async () => {
    const id = await newDashboard();
    for (const [session, status] of [
      [owner, 200],
      [editor, 200],
      [admin, 200],
      [viewer, 403],
      [stranger, 404],
    ] as const) {
      expect((await revisions(id, session)).status).toBe(status);
      const one = await call(server, 'GET', `/dashboards/${id}/revisions/1`, { token: session.access_token });
      expect(one.status).toBe(status);
      const yaml = await call(server, 'GET', `/dashboards/${id}/yaml?revision=1`, { token: session.access_token });
      expect(yaml.status).toBe(status);
    }
    for (const [session, status] of [
      [viewer, 403],
      [stranger, 404],
      [editor, 200],
    ] as const) {
      const answer = await call(server, 'POST', `/dashboards/${id}/revisions/1/restore`, {
        token: session.access_token,
      });
      expect(answer.status).toBe(status);
    }
    expect((await call(server, 'GET', `/dashboards/${id}/revisions`)).status).toBe(401);
  });

  it('keeps only the newest SERVICE_DASHBOARD_REVISIONS_KEPT revisions', async () => {
    const id = await newDashboard();
    for (let n = 1; n <= 5; n++) {
      await save(id, owner, {
        title: `Survey ${n}`,
        components: [text('intro', `# ${n}`)],
        layout: [place('intro', 0)],
      });
    }
    const list = await revisions(id, owner);
    expect(list.body.total).toBe(4);
    expect(list.body.items.map((item) => item.revision)).toEqual([6, 5, 4, 3]);
    expect((await call(server, 'GET', `/dashboards/${id}/revisions/1`, { token: owner.access_token })).status).toBe(
      404,
    );
    // Deleting the dashboard deletes its history.
    expect((await call(server, 'DELETE', `/dashboards/${id}`, { token: owner.access_token })).status).toBe(204);
    const left = await server.context.database.db
      .selectFrom('dashboard_revisions')
      .select('revision')
      .where('dashboard_id', '=', id)
      .execute();
    expect(left).toEqual([]);
  });
});
