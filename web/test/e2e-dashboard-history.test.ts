import { expect, it, vi } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import { call, createProjectWithUpload, createUser, uploadFile } from '../../test/support/test-server.js';
import { expectAccessibleLightAndDark, useBrowserSuite } from './support/e2e-dashboards.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

const text = (id: string, markdown: string) => ({ component_id: id, type: 'text', markdown });

describeBrowser('dashboard history in a real browser', () => {
  // Signed-in mode: History is for the dashboard's editors.
  const suite = useBrowserSuite({});

  it('shows a revision with its data, today’s or as it was then, and restores it as a new revision', async () => {
    const { browser, server } = suite;
    const owner = await createUser(server, suite.token, 'owner@example.org');
    const token = owner.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(server, token, 'Birds', 'a,b\n1,2\n');
    const upsert = async () => {
      const answer = await call(server, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId },
      });
      expect(answer.status, answer.text).toBe(200);
    };
    await upsert();
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: 'Counts',
        components: [
          text('intro', 'First words'),
          { component_id: 'rows', type: 'table', data_collection_id: collectionId },
        ],
        layout: [
          { component_id: 'intro', x: 0, y: 0, w: 12, h: 2 },
          { component_id: 'rows', x: 0, y: 2, w: 12, h: 6 },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    // New data after revision 1 was saved, then revision 2 without the table.
    expect(
      await uploadFile(server, token, collectionId, { path: 't.csv', run: 'run_2', content: 'a,b\n7771,8881\n' }),
    ).toBe(201);
    await upsert();
    const saved = await call(server, 'PUT', `/dashboards/${id}`, {
      token,
      json: {
        title: 'Counts, revised',
        components: [text('intro', 'Second words')],
        layout: [{ component_id: 'intro', x: 0, y: 0, w: 12, h: 2 }],
      },
    });
    expect(saved.status, saved.text).toBe(200);

    const { page } = await openPage(browser, server, `/dashboards/${id}`, { session: owner, timeout: 20_000 });
    await page.getByText('Second words').waitFor();
    await page.getByRole('button', { name: 'Dashboard ▾' }).click();
    await page.getByRole('menuitem', { name: 'History…' }).click();
    const panel = page.getByRole('dialog', { name: 'History' });
    const rows = panel.getByRole('table', { name: 'Revisions' });
    await rows.getByText(/^Title changed · Removed rows · Changed intro/).waitFor();
    await rows.getByText('Created').waitFor();

    await rows.locator('[data-revision="1"]').getByRole('button', { name: 'View' }).click();
    await panel.getByRole('region', { name: 'Revision 1, read-only' }).getByText('Revision 1: Counts').waitFor();
    await panel.getByRole('list', { name: 'Changes between the revisions' }).getByText('Title changed').waitFor();
    await expectAccessibleLightAndDark(page, 'dashboard history panel');

    // Revision 1 with today's data: its table, with the row added since.
    await panel.getByRole('button', { name: "Show with today's data" }).click();
    const banner = page.getByRole('region', { name: /^Revision 1, as saved .* \(read-only\)$/ });
    await banner.waitFor();
    const table = page.locator('[data-component-id="rows"]');
    await table.getByText('8881').waitFor();
    await page.getByText('First words').waitFor();
    await expectAccessibleLightAndDark(page, 'a past revision with its data');
    // The same revision with the data as it was when it was saved: the later row is not there yet.
    await banner.getByText('Data as it was then').click();
    await banner.getByText('Its components with the data as it was when it was saved.').waitFor();
    await table.getByText('2', { exact: true }).first().waitFor();
    await expect.poll(() => table.getByText('8881').count()).toBe(0);
    await banner.getByRole('link', { name: 'Back to the current dashboard' }).click();
    await page.getByText('Second words').waitFor();

    await page.getByRole('button', { name: 'Dashboard ▾' }).click();
    await page.getByRole('menuitem', { name: 'History…' }).click();
    await rows.locator('[data-revision="1"]').getByRole('button', { name: 'View' }).click();
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
