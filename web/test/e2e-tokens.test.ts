import { expect, it, vi } from 'vitest';
import { describeBrowser, expectAccessibleInBothThemes, openPage, saveScreenshot } from '../../test/support/browser.js';
import { call, createProjectWithUpload, createUser } from '../../test/support/test-server.js';
import { useBrowserSuite } from './support/e2e-dashboards.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

describeBrowser('the Tokens page in a real browser', () => {
  // Signed-in mode: tokens are made by signed-in users.
  const suite = useBrowserSuite({});

  it('creates a project-limited token shown once, which then works, and revokes it', async () => {
    const { browser, server } = suite;
    const ada = await createUser(server, suite.token, 'ada@example.org');
    const kept = await createProjectWithUpload(server, ada.access_token, 'Penguins');
    const other = await createProjectWithUpload(server, ada.access_token, 'Puffins');

    const { page } = await openPage(browser, server, '/projects', { session: ada, timeout: 20_000 });
    await page.getByRole('button', { name: 'Account menu for ada@example.org' }).click();
    await page.getByRole('menuitem', { name: 'Access tokens' }).click();
    await page.waitForURL((url) => url.pathname === '/settings/tokens');
    await page.getByText('No tokens yet.').waitFor();
    await expectAccessibleInBothThemes(page, 'tokens page');

    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByRole('textbox', { name: 'Name' }).fill('nightly pipeline');
    await form.getByRole('combobox', { name: 'Expires after' }).selectOption('30');
    await form.getByText('Read and write').click();
    await form.getByPlaceholder('All my projects').click();
    await page.getByRole('option', { name: 'Penguins' }).click();
    await page.keyboard.press('Escape');
    await form.getByRole('button', { name: 'Create token' }).click();

    const secret = await page.getByTestId('new-token').textContent();
    expect(secret).toMatch(/^pat_/);
    await page.getByRole('button', { name: 'Copy the token' }).waitFor();
    const row = page.getByRole('table', { name: 'Your tokens' }).getByRole('row', { name: /nightly pipeline/ });
    await row.getByText('Read and write').waitFor();
    await saveScreenshot(page, 'access-tokens');
    await expectAccessibleInBothThemes(page, 'tokens page with a new token');

    // The token works within its project, and nowhere else.
    const token = secret ?? '';
    expect((await call(server, 'GET', `/projects/${kept.projectId}`, { token })).status).toBe(200);
    expect((await call(server, 'GET', `/projects/${other.projectId}`, { token })).status).toBe(404);
    // Reloaded, the page lists the token but never shows its secret again.
    await page.reload();
    await page.getByRole('table', { name: 'Your tokens' }).getByText('127.0.0.1').waitFor();
    expect(await page.getByTestId('new-token').count()).toBe(0);
    expect(await page.content()).not.toContain(token);

    await page.getByRole('button', { name: 'Revoke the token nightly pipeline' }).click();
    await page.getByText('No tokens yet.').waitFor();
    expect((await call(server, 'GET', `/projects/${kept.projectId}`, { token })).status).toBe(401);
  });
});
