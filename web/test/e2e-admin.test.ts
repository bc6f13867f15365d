import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage as openBrowserPage,
  saveScreenshot,
  startWebServer,
  submitPasswordSignIn,
} from '../../test/support/browser.js';
import { ADMIN, call, createUser, login, type TestServer } from '../../test/support/test-server.js';

const TIMEOUT = 20_000;

let browser: Browser;
const openPage = (server: TestServer, path: string) =>
  openBrowserPage(browser, server, path, { height: 900, timeout: TIMEOUT });

/** Signs in through the sign-in card, as a person would. */
async function signIn(page: Page, email: string, password: string): Promise<void> {
  await submitPasswordSignIn(page, email, password);
  await page.getByRole('button', { name: `Account menu for ${email}` }).waitFor();
}

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main navigation' });

describeBrowser('admin pages and sharing in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  describeBrowser('auth mode', () => {
    let server: TestServer;
    let adminToken: string;
    beforeAll(async () => {
      server = await startWebServer();
      adminToken = (await login(server, ADMIN.email, ADMIN.password)).access_token;
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('lets an owner share a project, explains refusals, and the added viewer then sees it read-only', async () => {
      const owner = await createUser(server, adminToken, 'owner@example.org');
      await createUser(server, adminToken, 'viewer@example.org');
      const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
        token: owner.access_token,
        json: { name: 'Shared survey', description: 'Shared from the web app' },
      });
      expect(project.status).toBe(201);
      const projectPath = `/projects/${project.body.project_id}`;

      const { context, page } = await openPage(server, projectPath);
      await signIn(page, 'owner@example.org', 'owner@example.org-password');
      await page.waitForURL((url) => url.pathname === projectPath);
      const sharing = page.getByRole('region', { name: 'Sharing' });
      await sharing.getByRole('table', { name: 'Members' }).getByText('owner@example.org').waitFor();
      const save = sharing.getByRole('button', { name: 'Save sharing' });
      expect(await save.isDisabled()).toBe(true);

      // An address without an account: the refusal is shown beside that person.
      const email = sharing.getByRole('textbox', { name: 'Add a person by email' });
      await email.fill('nobody@example.org');
      await email.press('Enter');
      await save.click();
      await sharing.getByRole('alert').getByText('no account "nobody@example.org"').waitFor();
      await sharing.getByRole('button', { name: 'Remove nobody@example.org' }).click();

      // The last owner cannot step down.
      await sharing.getByRole('combobox', { name: 'Role of owner@example.org' }).selectOption('viewer');
      await sharing.getByText('You are no longer an owner in this draft').waitFor();
      await save.click();
      await sharing.getByRole('alert').getByText('Owners: a project needs at least one owner').waitFor();
      await sharing.getByRole('combobox', { name: 'Role of owner@example.org' }).selectOption('owner');

      // A malformed address never reaches the server.
      await email.fill('not-an-email');
      await sharing.getByRole('button', { name: 'Add', exact: true }).click();
      await sharing.getByText('Enter an email address').waitFor();

      await email.fill('Viewer@Example.org');
      await sharing.getByRole('combobox', { name: 'Role of the person to add' }).selectOption('viewer');
      await email.press('Enter');
      await sharing.getByRole('switch', { name: /^Public/ }).check({ force: true });
      await saveScreenshot(page, 'project-sharing');
      await expectAccessible(page, 'project-sharing');
      await save.click();
      await sharing.getByRole('status').getByText('Sharing saved.').waitFor();
      await page.getByText('public', { exact: true }).first().waitFor();
      await context.close();

      const members = await call<{ permissions: { viewers: { email: string }[] }; is_public: boolean }>(
        server,
        'GET',
        projectPath,
        { token: owner.access_token },
      );
      expect(members.body.permissions.viewers.map((viewer) => viewer.email)).toEqual(['viewer@example.org']);
      expect(members.body.is_public).toBe(true);

      // The viewer finds it under "Shared with me" and sees who has access, without controls.
      const second = await openPage(server, '/projects?scope=shared');
      await signIn(second.page, 'viewer@example.org', 'viewer@example.org-password');
      await second.page.getByRole('link', { name: 'Shared survey' }).click();
      const readOnly = second.page.getByRole('region', { name: 'Sharing' });
      await readOnly.getByText('Only owners change who has access.').waitFor();
      await readOnly.getByRole('list', { name: 'Members' }).getByText('owner@example.org').waitFor();
      expect(await readOnly.getByRole('button', { name: 'Save sharing' }).count()).toBe(0);
      expect(await readOnly.getByRole('textbox').count()).toBe(0);
      await second.context.close();
    });

    it('lets an admin create, disable, enable and delete an account, with a confirmation', async () => {
      const { context, page } = await openPage(server, '/projects');
      await signIn(page, ADMIN.email, ADMIN.password);
      await navigation(page).getByRole('link', { name: 'Users' }).click();
      await page.waitForURL(/\/admin\/users$/);
      const accounts = page.getByRole('table', { name: 'Accounts' });
      await accounts.getByText(ADMIN.email).waitFor();

      await page.getByRole('button', { name: 'Create account' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an account' });
      await dialog.getByRole('textbox', { name: 'Email' }).fill('new.person@example.org');
      await dialog.getByLabel(/^Password/).fill('short');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      await dialog.getByText(/at least 12 characters/).waitFor();
      await dialog.getByLabel(/^Password/).fill('a-long-enough-password');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await accounts.getByText('new.person@example.org').waitFor();
      await expect(login(server, 'new.person@example.org', 'a-long-enough-password')).resolves.toBeTruthy();

      // The same email again is refused with the API's reason.
      await page.getByRole('button', { name: 'Create account' }).click();
      await dialog.getByRole('textbox', { name: 'Email' }).fill('NEW.person@example.org');
      await dialog.getByLabel(/^Password/).fill('a-long-enough-password');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      await dialog.getByText('an account with this email already exists').waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // The only admin cannot disable themselves.
      await accounts.getByRole('button', { name: `Disable ${ADMIN.email}` }).click();
      await accounts.getByText('this is the last active admin').waitFor();

      await accounts.getByRole('button', { name: 'Disable new.person@example.org' }).click();
      await accounts.getByRole('button', { name: 'Enable new.person@example.org' }).waitFor();
      const refused = await call(server, 'POST', '/auth/login', {
        json: { email: 'new.person@example.org', password: 'a-long-enough-password' },
      });
      expect(refused.status).toBe(401);
      await accounts.getByRole('button', { name: 'Enable new.person@example.org' }).click();
      await accounts.getByRole('button', { name: 'Disable new.person@example.org' }).waitFor();
      await accounts.getByRole('combobox', { name: 'Role of new.person@example.org' }).selectOption('admin');
      await saveScreenshot(page, 'admin-users');
      await expectAccessible(page, 'admin-users');

      const listed = await call<{ items: { user_id: string; email: string; role: string; disabled: boolean }[] }>(
        server,
        'GET',
        '/users',
        { token: adminToken },
      );
      const created = listed.body.items.find((item) => item.email === 'new.person@example.org');
      await expect
        .poll(
          async () => {
            const answer = await call<{ role: string }>(server, 'GET', `/users/${created?.user_id}`, {
              token: adminToken,
            });
            return answer.body.role;
          },
          { timeout: TIMEOUT },
        )
        .toBe('admin');

      // Delete asks first, saying what the account owns alone; keeping it changes nothing.
      const person = await login(server, 'new.person@example.org', 'a-long-enough-password');
      const owned = await call<{ project_id: string }>(server, 'POST', '/projects', {
        token: person.access_token,
        json: { name: 'Left behind?' },
      });
      expect(owned.status).toBe(201);
      await accounts.getByRole('button', { name: 'Delete new.person@example.org' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this account?' });
      await confirm.getByRole('list', { name: 'What the account owns alone' }).getByText('1 project').waitFor();
      expect(await confirm.getByRole('radio', { name: 'Transfer them to an admin' }).isChecked()).toBe(true);
      const successor = confirm.getByRole('combobox', { name: 'New owner' });
      expect(await successor.locator('option:checked').textContent()).toBe(`${ADMIN.email} (you)`);
      await expectAccessible(page, 'delete-user');
      await saveScreenshot(page, 'delete-user');
      await confirm.getByRole('button', { name: 'Keep it' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await accounts.getByText('new.person@example.org').waitFor();
      expect(await accounts.getByRole('button', { name: `Delete ${ADMIN.email}` }).isDisabled()).toBe(true);
      await accounts.getByRole('button', { name: 'Delete new.person@example.org' }).click();
      await confirm.getByRole('button', { name: 'Delete new.person@example.org' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await accounts.getByText('new.person@example.org').waitFor({ state: 'detached' });
      const gone = await call(server, 'GET', `/users/${created?.user_id}`, { token: adminToken });
      expect(gone.status).toBe(404);
      const handedOver = await call<{ permissions: { owners: { email: string }[] } }>(
        server,
        'GET',
        `/projects/${owned.body.project_id}`,
        { token: adminToken },
      );
      expect(handedOver.body.permissions.owners.map((owner) => owner.email)).toEqual([ADMIN.email]);
      await context.close();
    });

    it('shows recorded sign-ins in the audit log, filtered by type', async () => {
      // One failed attempt through the sign-in card, then a successful one.
      const { context, page } = await openPage(server, '/admin/audit');
      await submitPasswordSignIn(page, ADMIN.email, 'wrong-password-123');
      await page.getByText('Wrong email or password.').waitFor();
      await signIn(page, ADMIN.email, ADMIN.password);
      await page.waitForURL(/\/admin\/audit$/);
      const events = page.getByRole('table', { name: 'Audit events' });
      await events.getByText('login.succeeded').first().waitFor();

      await page.getByRole('combobox', { name: 'Event type' }).selectOption('login.failed');
      await page.waitForURL(/type=login\.failed/);
      await events.getByText('login.failed').first().waitFor();
      await expect.poll(() => events.getByText('login.succeeded').count(), { timeout: TIMEOUT }).toBe(0);
      const failed = events.getByRole('row').filter({ hasText: 'login.failed' }).first();
      expect(await failed.textContent()).toContain(ADMIN.email);
      expect(await failed.textContent()).toContain('127.0.0.1');

      await page.getByRole('combobox', { name: 'Event type' }).selectOption('login.succeeded');
      await page.waitForURL(/type=login\.succeeded/);
      await expect.poll(() => events.getByText('login.failed').count(), { timeout: TIMEOUT }).toBe(0);
      await events.getByRole('row').filter({ hasText: ADMIN.email }).first().waitFor();

      // An admin's action names the admin by email.
      const created = await call(server, 'POST', '/users', {
        token: adminToken,
        json: { email: 'audited@example.org', password: 'audited-password-1' },
      });
      expect(created.status).toBe(201);
      await page.getByRole('combobox', { name: 'Event type' }).selectOption('user.created');
      const creation = events.getByRole('row').filter({ hasText: 'audited@example.org' });
      await creation.getByText(ADMIN.email).waitFor();
      expect(await creation.textContent()).toContain('via: admin');
      await page.getByRole('combobox', { name: 'Event type' }).selectOption('login.succeeded');
      await expect.poll(() => events.getByText('user.created').count(), { timeout: TIMEOUT }).toBe(0);
      await saveScreenshot(page, 'admin-audit');
      await expectAccessible(page, 'admin-audit');
      await context.close();
    });

    it('shows no admin pages to a regular user', async () => {
      await createUser(server, adminToken, 'regular@example.org');
      const { context, page } = await openPage(server, '/projects');
      await signIn(page, 'regular@example.org', 'regular@example.org-password');
      await navigation(page).getByRole('link', { name: 'Projects' }).waitFor();
      expect(await navigation(page).getByRole('link', { name: 'Users' }).count()).toBe(0);
      expect(await navigation(page).getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      await page.goto(`${server.url}/admin/users`);
      await page.getByText('This page is for administrators.').waitFor();
      expect(await page.getByRole('table', { name: 'Accounts' }).count()).toBe(0);
      await page.goto(`${server.url}/admin/audit`);
      await page.getByText('This page is for administrators.').waitFor();
      await context.close();
    });
  });
});
