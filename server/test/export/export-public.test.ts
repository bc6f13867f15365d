import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { renderPage } from '../../src/export/page.js';
import { type ExportWorld, exportPath, exportWorld } from './export-fixture.js';

/**
 * Public dashboards export to anyone in public and demo mode (docs/architecture.md "Export"); a
 * private one still asks for a sign-in or an embed token. In auth mode nothing exports anonymously.
 */
describeEachDialect('export of public dashboards', (dialect) => {
  let world: ExportWorld;
  beforeAll(async () => {
    world = await exportWorld(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const shared = await call(world.server, 'PUT', `/dashboards/${world.dashboardId}/permissions`, {
      token: world.ada.access_token,
      json: { owners: ['ada@example.org'], is_public: true },
    });
    if (shared.status !== 200) throw new Error(shared.text);
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });

  it('exports a public dashboard to anyone, as a spec and as a page', async () => {
    const spec = await call(world.server, 'GET', exportPath(world.dashboardId, 'mass'));
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body).toMatchObject({ spec: { value: 3595 } });
    const page = await call(world.server, 'GET', exportPath(world.dashboardId, 'hist', { format: 'html' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="export-spec"');
  });

  it('asks anonymous callers of a private dashboard to sign in, even in public mode', async () => {
    const answer = await call(world.server, 'GET', exportPath(world.otherDashboardId, 'mass'));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'unauthenticated' });
  });
});

describeEachDialect('export in auth mode', (dialect) => {
  let world: ExportWorld;
  beforeAll(async () => {
    world = await exportWorld(dialect);
    await call(world.server, 'PUT', `/dashboards/${world.dashboardId}/permissions`, {
      token: world.ada.access_token,
      json: { owners: ['ada@example.org'], is_public: true },
    });
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });

  it('exports a public dashboard to signed-in users only (anonymous callers use an embed token)', async () => {
    expect((await call(world.server, 'GET', exportPath(world.dashboardId, 'mass'))).status).toBe(401);
    const signedIn = await call(world.server, 'GET', exportPath(world.dashboardId, 'mass'), {
      token: world.dave.access_token,
    });
    expect(signedIn.status).toBe(200);
  });
});

it('lets exported pages be framed as SERVICE_EXPORT_FRAME_ANCESTORS says', async () => {
  const page = await renderPage({ title: 'T', theme: 'light', body: '<p>x</p>' }, ["'self'", 'https://*.example.org']);
  expect(page.csp).toMatch(/; frame-ancestors 'self' https:\/\/\*\.example\.org$/);
  // The <meta> copy of the policy leaves frame-ancestors out: browsers ignore it there.
  expect(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page.html)?.[1]).not.toContain(
    'frame-ancestors',
  );
});
