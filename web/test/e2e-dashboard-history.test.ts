import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeBrowser, launchBrowser, openPage, startWebServer } from '../../test/support/browser.js';
import { ADMIN, call, createUser, login, type TestServer } from '../../test/support/test-server.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

const text = (id: string, markdown: string) => ({ component_id: id, type: 'text', markdown });

describeBrowser('dashboard history in a real browser', () => {
  let browser: Browser;
  let server: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('restores an earlier revision from the History panel, as a new revision', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin.access_token, 'owner@example.org');
    const token = owner.access_token;
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name: 'Birds' } });
    const layout = [{ component_id: 'intro', x: 0, y: 0, w: 12, h: 2 }];
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.body.project_id,
        title: 'Counts',
        components: [text('intro', 'First words')],
        layout,
      },
    });
    const id = created.body.dashboard_id;
    const saved = await call(server, 'PUT', `/dashboards/${id}`, {
      token,
      json: { title: 'Counts, revised', components: [text('intro', 'Second words')], layout },
    });
    expect(saved.status, saved.text).toBe(200);

    const { page } = await openPage(browser, server, `/dashboards/${id}`, { session: owner, timeout: 20_000 });
    await page.getByText('Second words').waitFor();
    await page.getByRole('button', { name: 'Dashboard ▾' }).click();
    await page.getByRole('menuitem', { name: 'History…' }).click();
    const panel = page.getByRole('dialog', { name: 'History' });
    const rows = panel.getByRole('table', { name: 'Revisions' });
    await rows.getByText('Title changed · Changed intro').waitFor();
    await rows.getByText('Created').waitFor();

    await rows.locator('[data-revision="1"]').getByRole('button', { name: 'View' }).click();
    await panel.getByRole('region', { name: 'Revision 1, read-only' }).getByText('Revision 1: Counts').waitFor();
    await panel.getByRole('list', { name: 'Changes between the revisions' }).getByText('Title changed').waitFor();

    await panel.getByRole('button', { name: 'Restore revision 1' }).click();
    await rows.getByText('Restored revision 1').waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('First words').waitFor();

    const history = await call<{ items: { revision: number; summary: { restored_from: number | null } }[] }>(
      server,
      'GET',
      `/dashboards/${id}/revisions`,
      { token },
    );
    expect(history.body.items.map((item) => item.revision)).toEqual([3, 2, 1]);
    expect(history.body.items[0]?.summary.restored_from).toBe(1);
  });
});
