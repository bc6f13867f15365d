import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Answer, call, describeEachDialect, type Session } from '../../../test/support/test-server.js';
import { projectWithTable } from '../dashboards/analytics-table.js';
import { type ExportWorld, exportPath, exportWorld } from '../export/export-fixture.js';
import { contentState } from './state.js';

/**
 * Security review 2 (issue 23), findings 1, 3, 4 and 11, each performed as the review did: read
 * access turned into ownership, re-sharing and publishing; an editor publishing through tokens;
 * tokens showing more than their fixed view; a token's `as_of` not checked. Plus `If-Match` on
 * permission changes and deletes. Public mode, so temporary users and anonymous visitors exist.
 *
 * Ada owns project P and its dashboard D; Erin edits P; Vic views P; Carol views D alone (a
 * dashboard-only viewer); Bob edits D alone; Dave is a stranger.
 */
interface Dashboard {
  dashboard_id: string;
  is_public: boolean;
}

describeEachDialect('publishing needs the project share right (security review 2)', (dialect) => {
  let world: ExportWorld;
  let admin: Session;
  let erin: Session;
  let vic: Session;
  let temporary: Session;
  const server = () => world.server;
  const as = (session: Session | undefined) => (session ? { token: session.access_token } : {});
  const setProjectMembers = async (viewers: string[], editors = ['erin@example.org']) => {
    const answer = await call(server(), 'PUT', `/projects/${world.projectId}/permissions`, {
      token: world.ada.access_token,
      json: { owners: ['ada@example.org'], editors, viewers, is_public: false },
    });
    expect(answer.status, answer.text).toBe(200);
  };
  const duplicate = async (session: Session, id = world.dashboardId) => {
    const copy = await call<Dashboard>(server(), 'POST', `/dashboards/${id}/duplicate`, { ...as(session), json: {} });
    expect(copy.status, copy.text).toBe(201);
    return copy.body.dashboard_id;
  };
  const share = (session: Session | undefined, id: string, json: Record<string, unknown>, ifMatch?: string) =>
    call<Dashboard>(server(), 'PUT', `/dashboards/${id}/permissions`, {
      ...as(session),
      json: { owners: [], editors: [], viewers: [], is_public: false, ...json },
      ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
    });
  const mint = (session: Session | undefined, id: string, json: Record<string, unknown> = {}) =>
    call<{ token: string }>(server(), 'POST', `/dashboards/${id}/embed_tokens`, { ...as(session), json });
  /** A refused write changes nothing anywhere. */
  const refused = async (attempt: () => Promise<Answer<unknown>>, status: number) => {
    const before = await contentState(server().context.database);
    const answer = await attempt();
    expect(answer.status, answer.text).toBe(status);
    expect(await contentState(server().context.database)).toEqual(before);
  };

  beforeAll(async () => {
    world = await exportWorld(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const session = async (email: string) => {
      const row =
        (await server().context.users.repository.findByEmail(email)) ??
        (await server().context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' }));
      return server().context.sessions.start(row);
    };
    admin = await session(ADMIN.email);
    erin = await session('erin@example.org');
    vic = await session('vic@example.org');
    temporary = await server().context.temporaryUsers.create('127.0.0.1');
    await setProjectMembers(['vic@example.org']);
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });

  it('finding 1: a project viewer duplicates, re-shares, publishes and embeds the copy, and keeps it after removal — all refused', async () => {
    const copy = await duplicate(vic);
    // As owner of the copy: share it with a stranger, make it public, mint an anonymous token.
    await refused(() => share(vic, copy, { owners: ['vic@example.org'], viewers: ['dave@example.org'] }), 403);
    await refused(() => share(vic, copy, { owners: ['vic@example.org'], is_public: true }), 403);
    await refused(() => mint(vic, copy, { expires_in_hours: 8760 }), 403);
    await refused(() => mint(vic, copy, { component_id: 'rows' }), 403);
    expect((await call(server(), 'GET', `/dashboards/${copy}`, as(vic))).status).toBe(200);
    // Removed from the project: the copy goes with the project, at once, list included.
    await setProjectMembers([]);
    try {
      expect((await call(server(), 'GET', `/dashboards/${copy}`, as(vic))).status).toBe(404);
      const data = await call(server(), 'POST', `/dashboards/${copy}/data`, { ...as(vic), json: {} });
      expect(data.status).toBe(404);
      expect((await call(server(), 'GET', exportPath(copy, 'rows'), as(vic))).status).toBe(404);
      const listed = await call(server(), 'GET', '/dashboards?limit=200', as(vic));
      expect(listed.text).not.toContain(copy);
      // The project's owner still manages the copy like any of its dashboards.
      expect((await call(server(), 'GET', `/dashboards/${copy}`, as(world.ada))).status).toBe(200);
    } finally {
      await setProjectMembers(['vic@example.org']);
    }
    expect((await call(server(), 'GET', `/dashboards/${copy}`, as(vic))).status).toBe(200);
  });

  it("finding 1: a dashboard-only viewer re-shares their copy with anyone, and keeps it once the original's sharing drops them — refused", async () => {
    const copy = await duplicate(world.carol);
    await refused(
      () => share(world.carol, copy, { owners: ['carol@example.org'], viewers: ['dave@example.org'] }),
      403,
    );
    await refused(() => share(world.carol, copy, { owners: ['carol@example.org'], editors: ['bob@example.org'] }), 403);
    await refused(() => mint(world.carol, copy), 403);
    // A temporary user who reads a public dashboard of the private project: the same confinement.
    const opened = await share(world.ada, world.otherDashboardId, { owners: ['ada@example.org'], is_public: true });
    expect(opened.status, opened.text).toBe(200);
    const visitorsCopy = await duplicate(temporary, world.otherDashboardId);
    await refused(() => share(temporary, visitorsCopy, { owners: [temporary.user.user_id], is_public: true }), 403);
    const closed = await share(world.ada, world.otherDashboardId, { owners: ['ada@example.org'] });
    expect(closed.status, closed.text).toBe(200);
    expect((await call(server(), 'GET', `/dashboards/${visitorsCopy}`, as(temporary))).status).toBe(404);
    // Carol dropped from the original: her copy ends with it.
    expect((await call(server(), 'GET', `/dashboards/${copy}`, as(world.carol))).status).toBe(200);
    const dropped = await share(world.ada, world.dashboardId, {
      owners: ['ada@example.org'],
      editors: ['bob@example.org'],
    });
    expect(dropped.status, dropped.text).toBe(200);
    try {
      expect((await call(server(), 'GET', `/dashboards/${copy}`, as(world.carol))).status).toBe(404);
      const spec = await call(server(), 'GET', exportPath(copy, 'mass'), as(world.carol));
      expect(spec.status).toBe(404);
    } finally {
      const restored = await share(world.ada, world.dashboardId, {
        owners: ['ada@example.org'],
        editors: ['bob@example.org'],
        viewers: ['carol@example.org'],
      });
      expect(restored.status, restored.text).toBe(200);
    }
  });

  it('finding 1: a token keeps working after its creator loses the right to publish — refused at once', async () => {
    await setProjectMembers(['vic@example.org'], []);
    const promoted = await call(server(), 'PUT', `/projects/${world.projectId}/permissions`, {
      token: world.ada.access_token,
      json: { owners: ['ada@example.org', 'erin@example.org'], viewers: ['vic@example.org'], is_public: false },
    });
    expect(promoted.status, promoted.text).toBe(200);
    const created = await mint(erin, world.dashboardId, { component_id: 'mass' });
    expect(created.status, created.text).toBe(201);
    const read = () => call(server(), 'GET', exportPath(world.dashboardId, 'mass', { token: created.body.token }));
    expect((await read()).status).toBe(200);
    // Erin back to editor: she edits the project but no longer shares it, so her tokens stop.
    await setProjectMembers(['vic@example.org']);
    const dead = await read();
    expect(dead.status).toBe(401);
    expect(dead.body).toMatchObject({ code: 'token_invalid' });
  });

  it('finding 4: a project editor who gets 403 making a dashboard public builds one of whole tables and mints a year-long token — refused', async () => {
    const created = await call<Dashboard>(server(), 'POST', '/dashboards', {
      ...as(erin),
      json: {
        project_id: world.projectId,
        title: 'Everything',
        components: [{ component_id: 'all', type: 'table', data_collection_id: world.collectionId }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    await refused(() => share(erin, id, { owners: ['erin@example.org'], is_public: true }), 403);
    await refused(() => mint(erin, id, { expires_in_hours: 8760 }), 403);
    await refused(() => mint(erin, id, { component_id: 'all', expires_in_hours: 8760 }), 403);
    // Sharing within the project's readers stays the editor's to do.
    const withinProject = await share(erin, id, { owners: ['erin@example.org'], viewers: ['vic@example.org'] });
    expect(withinProject.status, withinProject.text).toBe(200);
  });

  it('finding 11: a token whose as_of names another project’s collection or a version that never was — refused', async () => {
    const elsewhere = (await projectWithTable(server(), world.dave.access_token, 'Elsewhere')).collectionId;
    await refused(() => mint(world.ada, world.dashboardId, { as_of: { [elsewhere]: 0 } }), 400);
    await refused(() => mint(world.ada, world.dashboardId, { as_of: { [world.collectionId]: 99 } }), 404);
    const pinned = await mint(world.ada, world.dashboardId, { as_of: { [world.collectionId]: 0 } });
    expect(pinned.status, pinned.text).toBe(201);
  });

  it("finding 3: a dashboard-wide token's fixed filter on a figure leaves that figure unfiltered — refused", async () => {
    const created = await mint(world.ada, world.dashboardId, {
      filters: [{ component_id: 'bars', value: ['Gentoo'] }],
    });
    expect(created.status, created.text).toBe(201);
    const bars = await call(server(), 'GET', exportPath(world.dashboardId, 'bars', { token: created.body.token }));
    expect(bars.status, bars.text).toBe(200);
    const source = JSON.stringify((bars.body as { spec: { dataset: unknown } }).spec.dataset);
    expect(source).toContain('Gentoo');
    for (const hidden of ['Adelie', 'Chinstrap']) expect(source).not.toContain(hidden);
  });

  it('finding 3: a card under a token answers the whole-table unfiltered_value (the total payroll) — refused', async () => {
    const created = await mint(world.ada, world.dashboardId, {
      component_id: 'mass',
      filters: [{ component_id: 'species', value: ['Gentoo'] }],
    });
    const path = (format: string) => exportPath(world.dashboardId, 'mass', { token: created.body.token, format });
    const spec = await call<{ spec: Record<string, unknown> }>(server(), 'GET', path('spec'));
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body.spec).toEqual({ value: 3795, unfiltered_value: null, label: 'mean mass' });
    const page = await call(server(), 'GET', path('html'));
    expect(page.status).toBe(200);
    // The whole table's mean mass (3595) appears nowhere on the page.
    expect(page.text).not.toContain('3595');
    expect(page.text).not.toContain('3,595');
    // A reader (no token) still sees both numbers.
    const reader = await call<{ spec: Record<string, unknown> }>(
      server(),
      'GET',
      exportPath(world.dashboardId, 'mass'),
      as(world.carol),
    );
    expect(reader.body.spec).toMatchObject({ unfiltered_value: 3595 });
  });

  it("finding 3: a component token's caller filters other components to bisect columns it never shows — refused", async () => {
    const created = await mint(world.ada, world.dashboardId, {
      component_id: 'mass',
      filters: [{ component_id: 'species', value: ['Gentoo'] }],
    });
    const probe = (filters: unknown) =>
      call(
        server(),
        'GET',
        exportPath(world.dashboardId, 'mass', { token: created.body.token, filters: JSON.stringify(filters) }),
      );
    for (const oracle of [
      [{ component_id: 'island', value: ['Dream'] }],
      [{ component_id: 'hist', value: [3000, 3500] }],
      [{ component_id: 'species', value: ['Adelie'] }],
    ]) {
      const answer = await probe(oracle);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed' });
    }
  });

  describe('who may publish, by role', () => {
    const roles = (): [string, Session | undefined, number, number][] => [
      // name, session, POST embed_tokens, PUT permissions adding a stranger
      ['admin', admin, 201, 200],
      ['owner', world.ada, 201, 200],
      ['editor', erin, 403, 403],
      ['viewer', vic, 403, 403],
      ['dashboard editor', world.bob, 403, 403],
      ['dashboard-only viewer', world.carol, 403, 403],
      ['other user', world.dave, 404, 404],
      ['temporary user', temporary, 404, 404],
      ['anonymous', undefined, 401, 401],
    ];
    it('mints tokens and shares beyond the project only with the project share right', async () => {
      for (const [name, session, minting, sharing] of roles()) {
        const id = await freshDashboard(world);
        const token = await mint(session, id, { component_id: 'mass' });
        expect(token.status, `${name} mints: ${token.text}`).toBe(minting);
        const members = { owners: ['ada@example.org'], viewers: ['dave@example.org'] };
        const shared = await share(session, id, members);
        expect(shared.status, `${name} shares: ${shared.text}`).toBe(sharing);
      }
    });
    it('opens an exported component to anonymous callers with a token only', async () => {
      const created = await mint(world.ada, world.dashboardId, { component_id: 'mass' });
      const withToken = await call(
        server(),
        'GET',
        exportPath(world.dashboardId, 'mass', { token: created.body.token }),
      );
      expect(withToken.status, withToken.text).toBe(200);
      expect((await call(server(), 'GET', exportPath(world.dashboardId, 'mass'))).status).toBe(401);
    });
  });

  it('If-Match: a permission change or a delete from a stale ETag answers 412 and changes nothing', async () => {
    const id = await freshDashboard(world);
    const first = await call(server(), 'GET', `/dashboards/${id}`, as(world.ada));
    const etag = first.headers.get('etag') ?? '';
    const changed = await share(world.ada, id, { owners: ['ada@example.org'], viewers: ['vic@example.org'] }, etag);
    expect(changed.status, changed.text).toBe(200);
    const next = changed.headers.get('etag') ?? '';
    expect(next).not.toBe(etag);
    await refused(() => share(world.ada, id, { owners: ['ada@example.org'] }, etag), 412);
    const stale = () =>
      call(server(), 'DELETE', `/dashboards/${id}`, { ...as(world.ada), headers: { 'if-match': etag } });
    await refused(stale, 412);
    const deleted = await call(server(), 'DELETE', `/dashboards/${id}`, {
      ...as(world.ada),
      headers: { 'if-match': next },
    });
    expect(deleted.status, deleted.text).toBe(204);
  });
});

/** A new dashboard of Ada's in P with the fixture's components, shared like D (Bob edits, Carol views). */
async function freshDashboard(world: ExportWorld): Promise<string> {
  const original = await call<{ components: unknown[] }>(world.server, 'GET', `/dashboards/${world.dashboardId}`, {
    token: world.ada.access_token,
  });
  const created = await call<Dashboard>(world.server, 'POST', '/dashboards', {
    token: world.ada.access_token,
    json: { project_id: world.projectId, title: 'Fresh', components: original.body.components },
  });
  if (created.status !== 201) throw new Error(created.text);
  const id = created.body.dashboard_id;
  const shared = await call(world.server, 'PUT', `/dashboards/${id}/permissions`, {
    token: world.ada.access_token,
    json: {
      owners: ['ada@example.org'],
      editors: ['bob@example.org'],
      viewers: ['carol@example.org'],
      is_public: false,
    },
  });
  if (shared.status !== 200) throw new Error(shared.text);
  return id;
}
