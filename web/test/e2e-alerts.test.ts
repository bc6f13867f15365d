import { expect, it, vi } from 'vitest';
import { describeBrowser, expectAccessibleInBothThemes, openPage } from '../../test/support/browser.js';
import { call, createProjectWithUpload, createUser, uploadFile } from '../../test/support/test-server.js';
import { useBrowserSuite } from './support/e2e-dashboards.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

/** "Alert me…" on a card, then the bell in the header (docs/live-data.md "Alerts"). */
describeBrowser('alerts on a card, in a real browser', () => {
  const suite = useBrowserSuite({});

  it('creates an alert from a card; data crossing the threshold lights the bell with the notification', async () => {
    const { browser, server } = suite;
    const owner = await createUser(server, suite.token, 'owner@example.org');
    const token = owner.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(server, token, 'Alerts', 'a,b\n1,2\n');
    await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: collectionId } });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: 'Watched',
        components: [
          { component_id: 'rows', type: 'card', title: 'Row count', data_collection_id: collectionId, agg: 'count' },
        ],
        layout: [{ component_id: 'rows', x: 0, y: 0, w: 4, h: 3 }],
      },
    });
    expect(created.status, created.text).toBe(201);

    const { page } = await openPage(browser, server, `/dashboards/${created.body.dashboard_id}`, {
      session: owner,
      timeout: 20_000,
    });
    await page.locator('[data-component-id="rows"][data-state="ready"]').waitFor();
    await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Menu of Row count' }).click();
    await page.getByRole('menuitem', { name: 'Alert me…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alert me: Row count' });
    await dialog.getByRole('textbox', { name: 'Value' }).fill('1');
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    await dialog.getByText('When it is above 1').waitFor();
    await expectAccessibleInBothThemes(page, 'alert dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A second row: the count goes from 1 to 2, above the threshold.
    expect(await uploadFile(server, token, collectionId, { path: 't.csv', run: 'run_2', content: 'a,b\n3,4\n' })).toBe(
      201,
    );
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId },
    });
    expect(upsert.status, upsert.text).toBe(200);
    const bell = page.getByRole('button', { name: 'Notifications (1 unread)' });
    await bell.waitFor({ timeout: 30_000 });
    await bell.click();
    const list = page.getByRole('region', { name: 'Notifications' });
    await list.getByRole('link', { name: 'rows: 2' }).waitFor();
    await expectAccessibleInBothThemes(page, 'notifications');
    await list.getByRole('button', { name: 'Mark read' }).click();
    await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
  });
});
