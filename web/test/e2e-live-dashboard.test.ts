import { expect, it, vi } from 'vitest';
import { describeBrowser, expectAccessible, openPage, saveScreenshot } from '../../test/support/browser.js';
import { call, createProjectWithUpload, createUser, uploadFile } from '../../test/support/test-server.js';
import { useBrowserSuite } from './support/e2e-dashboards.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

/** A dashboard open in Chromium follows new table versions over the live stream (docs/live-data.md). */
describeBrowser('a dashboard that updates itself, in a real browser', () => {
  // Signed-in mode: the stream must carry the owner's token.
  const suite = useBrowserSuite({});

  it('shows new rows without a reload, and offers them instead when pinned', async () => {
    const { browser, server } = suite;
    const owner = await createUser(server, suite.token, 'owner@example.org');
    const token = owner.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(server, token, 'Live', 'a,b\n1,2\n');
    await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: collectionId } });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: 'Live rows',
        components: [{ component_id: 'rows', type: 'table', data_collection_id: collectionId }],
        layout: [{ component_id: 'rows', x: 0, y: 0, w: 12, h: 6 }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const addRow = async (run: string, a: number, b: number) => {
      const status = await uploadFile(server, token, collectionId, { path: 't.csv', run, content: `a,b\n${a},${b}\n` });
      expect(status).toBe(201);
      const upsert = await call(server, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId },
      });
      expect(upsert.status, upsert.text).toBe(200);
    };

    const { page } = await openPage(browser, server, `/dashboards/${created.body.dashboard_id}`, {
      session: owner,
      timeout: 20_000,
    });
    const table = page.locator('[data-component-id="rows"]');
    await table.getByText('2', { exact: true }).first().waitFor();
    // The stream is open once the server counts it; then the upload is certain to be heard.
    await expect.poll(() => server.context.live.openStreams, { timeout: 20_000 }).toBeGreaterThan(0);
    await addRow('run_2', 7771, 8881);
    await table.getByText('8881', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('updated-at').textContent()).toMatch(/^Updated \d\d:\d\d$/);
    await expectAccessible(page, 'live dashboard');
    await saveScreenshot(page, 'live-dashboard-updated');

    await page.getByRole('switch', { name: 'Pin to this version' }).check();
    await addRow('run_3', 7772, 8882);
    const notice = page.getByRole('status', { name: 'New data' });
    await notice.waitFor({ timeout: 15_000 });
    expect(await table.getByText('8882', { exact: true }).count()).toBe(0);
    await expectAccessible(page, 'live dashboard, pinned, new data');
    await saveScreenshot(page, 'live-dashboard-new-data');
    await notice.getByRole('button', { name: 'Show' }).click();
    await table.getByText('8882', { exact: true }).waitFor({ timeout: 15_000 });
    await notice.waitFor({ state: 'detached' });
  });
});
