import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { createToken, type ExportWorld, exportPath, exportWorld } from './export-fixture.js';

/**
 * Security review 2, finding 10: in single-user mode every request is the admin, so an export
 * answered with `Access-Control-Allow-Origin: *` lets any page the operator visits read any
 * dashboard. There, only a request carrying an embed token is answered across origins.
 */
describeEachDialect('export CORS in single-user mode', (dialect) => {
  let world: ExportWorld;
  beforeAll(async () => {
    world = await exportWorld(dialect, { SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });

  it('finding 10: a page elsewhere reads an export through the operator’s browser — no CORS grant without a token', async () => {
    const origin = { headers: { origin: 'https://evil.example' } };
    for (const format of ['spec', 'html']) {
      const answer = await call(world.server, 'GET', exportPath(world.dashboardId, 'mass', { format }), origin);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    const { token } = await createToken(world, { component_id: 'mass' });
    const embedded = await call(world.server, 'GET', exportPath(world.dashboardId, 'mass', { token }), origin);
    expect(embedded.status, embedded.text).toBe(200);
    expect(embedded.headers.get('access-control-allow-origin')).toBe('*');
  });
});
