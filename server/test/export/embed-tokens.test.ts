import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, uploadFile } from '../../../test/support/test-server.js';
import { PENGUINS, upsert } from '../dashboards/analytics-table.js';
import { contentState } from '../policy/state.js';
import { type Created, createToken, type ExportWorld, exportPath, exportWorld } from './export-fixture.js';

/**
 * Embed tokens (docs/architecture.md "Export"): who manages them, how they are stored, and every way
 * a token must fail: another component or dashboard, expired, revoked, made up, widened by the
 * query string, or used anywhere but the export route.
 */

interface Card {
  spec: { value: number; unfiltered_value: number };
}

const filtersParam = (filters: { component_id: string; value: unknown }[]) => JSON.stringify(filters);

describeEachDialect('embed tokens', (dialect) => {
  let world: ExportWorld;
  beforeAll(async () => {
    world = await exportWorld(dialect);
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });
  const tokensPath = () => `/dashboards/${world.dashboardId}/embed_tokens`;
  const withToken = <T = Card>(
    componentId: string,
    token: string,
    query: Record<string, string> = {},
    dashboardId = world.dashboardId,
  ) => call<T>(world.server, 'GET', exportPath(dashboardId, componentId, { ...query, token }));
  const expectInvalid = async (answer: Promise<{ status: number; body: unknown }>) => {
    const settled = await answer;
    expect(settled.status).toBe(401);
    expect(settled.body).toMatchObject({ code: 'token_invalid' });
  };

  it("lets the project's sharers create tokens and the dashboard's editors list and revoke them", async () => {
    const body = { component_id: 'bars' };
    // Bob edits the dashboard but does not share its project: making a token is publishing.
    for (const [session, create, manage] of [
      [world.ada, 201, 200],
      [world.bob, 403, 200],
      [world.carol, 403, 403],
      [world.dave, 404, 404],
      [undefined, 401, 401],
    ] as const) {
      const options = session === undefined ? {} : { token: session.access_token };
      const before = create === 201 ? null : await contentState(world.server.context.database);
      const created = await call(world.server, 'POST', tokensPath(), { ...options, json: body });
      expect(created.status, created.text).toBe(create);
      if (before !== null) expect(await contentState(world.server.context.database)).toEqual(before);
      expect((await call(world.server, 'GET', tokensPath(), options)).status).toBe(manage);
      const revoked = await call(
        world.server,
        'DELETE',
        `${tokensPath()}/0190b0b0-0000-7000-8000-000000000000`,
        options,
      );
      expect(revoked.status).toBe(manage === 200 ? 404 : manage);
    }
  });

  it('answers the secret once (256 random bits), stores only its SHA-256 and lists tokens without it', async () => {
    const created = await createToken(world, { component_id: 'hist', expires_in_hours: 2 });
    expect(created.token).toMatch(/^emb_[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(
      `http://127.0.0.1:8058/service/api/v1/export/components/${world.dashboardId}/hist?format=spec&token=${created.token}`,
    );
    expect(created.html_url).toContain('?format=html&token=');
    const hours = (Date.parse(created.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);
    const row = await world.server.context.database.db
      .selectFrom('embed_tokens')
      .selectAll()
      .where('id', '=', created.embed_token_id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4));
    const list = await call<{ items: Record<string, unknown>[]; total: number }>(world.server, 'GET', tokensPath(), {
      token: world.bob.access_token,
    });
    expect(list.text).not.toContain(created.token.slice(4));
    expect(list.text).not.toContain(row.token_hash);
    const item = list.body.items.find((candidate) => candidate.embed_token_id === created.embed_token_id);
    expect(item).toMatchObject({
      component_id: 'hist',
      filters: [],
      as_of: null,
      created_by: world.ada.user.user_id,
      last_used_at: null,
      revoked: false,
    });
    // A dashboard-wide token's links name the component to fill in.
    const wide = await createToken(world, {});
    expect(wide.url).toContain(`/export/components/${world.dashboardId}/{component_id}?format=spec&token=`);
    const defaults = (Date.parse(wide.expires_at) - Date.now()) / 3_600_000;
    expect(Math.round(defaults)).toBe(720);
  });

  it('refuses tokens that cannot mean anything: a year and more, unknown components, filters that do not fit', async () => {
    for (const body of [
      { expires_in_hours: 8761 },
      { expires_in_hours: 0 },
      { component_id: 'nothing' },
      { component_id: 'species' },
      { filters: [{ component_id: 'nothing', value: ['x'] }] },
      { filters: [{ component_id: 'species', value: 'Adelie' }] },
      { token: 'chosen-by-me' },
    ]) {
      const answer = await call(world.server, 'POST', tokensPath(), { token: world.ada.access_token, json: body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('opens its component to anyone, records each use, and opens nothing else', async () => {
    const created = await createToken(world, { component_id: 'mass' });
    const before = Date.now();
    const answer = await withToken('mass', created.token);
    expect(answer.status).toBe(200);
    expect(answer.body.spec.value).toBe(3595);
    const page = await withToken<string>('mass', created.token, { format: 'html' });
    expect(page.status).toBe(200);
    const row = await world.server.context.database.db
      .selectFrom('embed_tokens')
      .select('last_used_at')
      .where('id', '=', created.embed_token_id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.last_used_at ?? '')).toBeGreaterThanOrEqual(before - 1000);
    // Another component, another dashboard, a bearer token's place, a made-up one.
    await expectInvalid(withToken('bars', created.token));
    await expectInvalid(withToken('mass', created.token, {}, world.otherDashboardId));
    await expectInvalid(withToken('mass', `emb_${'A'.repeat(43)}`));
    await expectInvalid(withToken('mass', created.token.slice(0, -1)));
    await expectInvalid(withToken('mass', world.carol.access_token));
    // A refused token on a page: the page says so, with the status.
    const refused = await withToken<string>('bars', created.token, { format: 'html' });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('Invalid Token');
  });

  it('opens every component of its dashboard when it names none', async () => {
    const created = await createToken(world, {});
    for (const component of ['bars', 'hist', 'mass', 'rows']) {
      expect((await withToken(component, created.token)).status).toBe(200);
    }
    expect((await withToken<string>('intro', created.token, { format: 'html' })).status).toBe(200);
    expect((await withToken('nothing', created.token)).status).toBe(404);
    await expectInvalid(withToken('bars', created.token, {}, world.otherDashboardId));
  });

  it('stops working once expired or revoked; revoking is recorded in the audit log', async () => {
    const expiring = await createToken(world, { component_id: 'mass' });
    expect((await withToken('mass', expiring.token)).status).toBe(200);
    await world.server.context.database.db
      .updateTable('embed_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expiring.embed_token_id)
      .execute();
    await expectInvalid(withToken('mass', expiring.token));

    const revoked = await createToken(world, { component_id: 'mass' });
    expect((await withToken('mass', revoked.token)).status).toBe(200);
    const path = `${tokensPath()}/${revoked.embed_token_id}`;
    expect((await call(world.server, 'DELETE', path, { token: world.carol.access_token })).status).toBe(403);
    expect((await withToken('mass', revoked.token)).status).toBe(200);
    expect((await call(world.server, 'DELETE', path, { token: world.bob.access_token })).status).toBe(204);
    await expectInvalid(withToken('mass', revoked.token));
    expect((await call(world.server, 'DELETE', path, { token: world.ada.access_token })).status).toBe(204);
    // A token of this dashboard cannot be revoked through another.
    const elsewhere = `/dashboards/${world.otherDashboardId}/embed_tokens/${expiring.embed_token_id}`;
    expect((await call(world.server, 'DELETE', elsewhere, { token: world.ada.access_token })).status).toBe(404);
    const list = await call<{ items: { embed_token_id: string; revoked: boolean; revoked_at: string | null }[] }>(
      world.server,
      'GET',
      `${tokensPath()}?limit=200`,
      { token: world.ada.access_token },
    );
    expect(list.body.items.find((item) => item.embed_token_id === revoked.embed_token_id)).toMatchObject({
      revoked: true,
      revoked_at: expect.any(String),
    });

    const audit = await world.server.context.audit.list({ limit: 200, skip: 0 });
    const events = audit.items.filter((event) => event.details.embed_token_id === revoked.embed_token_id);
    expect(events.map((event) => event.type).sort()).toEqual(['embed_token.created', 'embed_token.revoked']);
    expect(events.find((event) => event.type === 'embed_token.revoked')?.actor_user_id).toBe(world.bob.user.user_id);
    expect(JSON.stringify(audit.items)).not.toContain(revoked.token.slice(4));
  });

  it("applies its fixed filters on top of the caller's, which can narrow but never widen them", async () => {
    const wide = await createToken(world, { filters: [{ component_id: 'species', value: ['Gentoo'] }] });
    // Gentoo: i = 60…99, mean mass 3000 + 10·79.5.
    expect((await withToken('mass', wide.token)).body.spec).toEqual(expect.objectContaining({ value: 3795 }));
    const widened = await withToken('mass', wide.token, {
      filters: filtersParam([{ component_id: 'species', value: ['Adelie', 'Gentoo', 'Chinstrap'] }]),
    });
    expect(widened.status).toBe(200);
    expect(widened.body.spec.value).toBe(3795);
    // Gentoo on Dream: even i from 60 to 98, mean i 79.
    const narrowed = await withToken('mass', wide.token, {
      filters: filtersParam([{ component_id: 'island', value: ['Dream'] }]),
    });
    expect(narrowed.body.spec.value).toBe(3790);
    // The token decides the versions; a caller cannot travel in time with it.
    const travelled = await withToken('mass', wide.token, { as_of: '2000-01-01T00:00:00Z' });
    expect(travelled.status).toBe(400);
  });

  it('never acts as a bearer token, nor opens any other route from the query string', async () => {
    const created = await createToken(world, {});
    const document = await call<{ paths: Record<string, Record<string, unknown>> }>(
      world.server,
      'GET',
      '/openapi.json',
    );
    const ids: Record<string, string> = {
      id: world.dashboardId,
      dashboard_id: world.dashboardId,
      component_id: 'bars',
      embed_token_id: created.embed_token_id,
      column: 'mass',
    };
    const before = await contentState(world.server.context.database);
    let checked = 0;
    for (const [template, methods] of Object.entries(document.body.paths)) {
      if (template.includes('/export/components/')) continue;
      const path = template
        .replace('/service/api/v1', '')
        .replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? world.projectId);
      for (const method of Object.keys(methods).map((name) => name.toUpperCase())) {
        const json = method === 'GET' || method === 'DELETE' ? undefined : {};
        const options = json === undefined ? {} : { json };
        const anonymous = await call(world.server, method, path, options);
        const bearer = await call(world.server, method, path, { ...options, token: created.token });
        const query = await call(
          world.server,
          method,
          `${path}${path.includes('?') ? '&' : '?'}token=${created.token}`,
          options,
        );
        for (const [how, answer] of [
          ['as a bearer token', bearer],
          ['in the query string', query],
        ] as const) {
          const route = `${method} ${template} ${how}`;
          // Nothing answered with the token that an anonymous caller is not answered too.
          if (answer.status < 300) expect(anonymous.status, route).toBeLessThan(300);
          if (anonymous.status === 401) expect(answer.status, route).toBe(401);
        }
        // Routes that take a user resolve the bearer token, and refuse it.
        if (anonymous.status === 401) expect(bearer.body).toMatchObject({ code: 'token_invalid' });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(await contentState(world.server.context.database)).toEqual(before);
  });

  it('pins the table versions it was made with, while a reader sees the live table', async () => {
    const version = (
      await call<{ version: Record<string, number> }>(world.server, 'GET', exportPath(world.dashboardId, 'mass'), {
        token: world.carol.access_token,
      })
    ).body.version[world.collectionId] as number;
    const pinned = await createToken(world, { component_id: 'mass', as_of: { [world.collectionId]: version } });
    const live = await createToken(world, { component_id: 'mass' });
    // The first ten penguins only: mean mass 3045.
    const fewer = PENGUINS.split('\n').slice(0, 11).join('\n');
    expect(
      await uploadFile(world.server, world.ada.access_token, world.collectionId, {
        path: 't.csv',
        content: `${fewer}\n`,
      }),
    ).toBe(201);
    await upsert(world.server, world.ada.access_token, world.collectionId);
    expect((await withToken('mass', pinned.token)).body.spec.value).toBe(3595);
    expect((await withToken('mass', live.token)).body.spec.value).toBe(3045);
    const reader = await call<Card>(world.server, 'GET', exportPath(world.dashboardId, 'mass'), {
      token: world.carol.access_token,
    });
    expect(reader.body.spec.value).toBe(3045);
  });
});

export type { Created };
