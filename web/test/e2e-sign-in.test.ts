import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage as openBrowserPage,
  saveScreenshot,
  startWebServer,
  transitionsEnded,
} from '../../test/support/browser.js';
import { ADMIN, call, login, type TestServer } from '../../test/support/test-server.js';

const TIMEOUT = 15_000;

let browser: Browser;
const openPage = (server: TestServer, path: string) => openBrowserPage(browser, server, path, { timeout: TIMEOUT });

/** The accessible name of the focused element, as a test can compare it. */
const FOCUSED_NAME = `(() => {
  const element = document.activeElement;
  return element ? (element.getAttribute('aria-label') ?? element.textContent ?? '').trim() : '';
})()`;

/** Presses Tab (or Shift+Tab) until the control named `name` has the focus; fails if it never does. */
async function tabTo(page: Page, name: string, { backwards = false } = {}): Promise<void> {
  for (let presses = 0; presses < 80; presses++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    if ((await page.evaluate(FOCUSED_NAME)) === name) return;
  }
  throw new Error(`"${name}" cannot be reached with the keyboard`);
}

describeBrowser('web app in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  describeBrowser('auth mode', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer();
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('asks for a sign-in with email, password and a Register link', async () => {
      const { context, page } = await openPage(server, '/');
      await page.waitForURL(/\/auth\/sign-in/);
      // The sign-in page is its own chunk: wait for it to render rather than probing at once.
      await page.getByRole('textbox', { name: 'Email' }).waitFor();
      await page.getByLabel(/^Password/).waitFor();
      await page.getByRole('link', { name: 'Register' }).waitFor();
      await saveScreenshot(page, 'sign-in');
      await expectAccessible(page, 'sign-in');
      await page.getByRole('link', { name: 'Register' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      await saveScreenshot(page, 'register');
      await expectAccessible(page, 'register');
      await context.close();
    });

    it('explains an identity-provider refusal', async () => {
      const { context, page } = await openPage(server, '/auth/sign-in?error=registration_disabled');
      await page.getByRole('alert').getByText('new accounts cannot be created here').waitFor();
      await context.close();
    });

    it('signs in with a password and lists a project created through the API, with its data preview', async () => {
      const session = await login(server, ADMIN.email, ADMIN.password);
      const token = session.access_token;
      const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
        token,
        json: { name: 'Penguin survey', description: 'Body measurements of three species' },
      });
      expect(project.status).toBe(201);
      const projectId = project.body.project_id;
      const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${projectId}/workflows`, {
        token,
        json: { name: 'measure', engine: { name: 'nextflow', version: '24.10' } },
      });
      expect(workflow.status).toBe(201);
      const collection = await call<{ data_collection_id: string }>(
        server,
        'POST',
        `/workflows/${workflow.body.workflow_id}/datacollections`,
        { token, json: { tag: 'measurements', format: 'csv', pattern: 'measures\\.csv' } },
      );
      expect(collection.status).toBe(201);
      const collectionId = collection.body.data_collection_id;
      const csv = ['species,island,bill_mm', 'Adelie,Torgersen,39.1', 'Gentoo,Biscoe,46.1', 'Chinstrap,Dream,49.5'];
      const form = new FormData();
      form.append('file', new Blob([`${csv.join('\n')}\n`]), 'measures.csv');
      const upload = await call(server, 'POST', `/datacollections/${collectionId}/files`, { token, form });
      expect(upload.status).toBe(201);
      const upsert = await call(server, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId },
      });
      expect(upsert.status).toBe(200);

      const { context, page } = await openPage(server, '/projects');
      await page.waitForURL(/\/auth\/sign-in\?next=/);
      await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN.email);
      await page.getByLabel(/^Password/).fill('wrong-password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Wrong email or password.').waitFor();
      await page.getByLabel(/^Password/).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/projects$/);
      await page.getByRole('link', { name: 'Penguin survey' }).waitFor();
      await saveScreenshot(page, 'projects');
      await expectAccessible(page, 'projects');

      await page.getByRole('link', { name: 'Penguin survey' }).click();
      await page.getByRole('heading', { name: 'Penguin survey' }).waitFor();
      await page.getByRole('button', { name: /measurements/ }).click();
      await page.getByRole('table', { name: 'Preview of measurements' }).getByText('Chinstrap').waitFor();
      await page.getByText('3 rows').waitFor();
      await saveScreenshot(page, 'project-detail');
      await expectAccessible(page, 'project-detail');

      // The explorer from the keyboard alone: Tab reaches a sort button and Enter sorts; the view
      // tabs follow the arrow keys.
      await tabTo(page, 'Sort by bill_mm');
      await page.keyboard.press('Enter');
      await page.waitForURL(/sort=bill_mm%3Aasc/);
      await page.locator('th[aria-sort="ascending"]').getByRole('button', { name: 'Sort by bill_mm' }).waitFor();
      await tabTo(page, 'Rows', { backwards: true });
      await page.keyboard.press('ArrowRight');
      await page.getByRole('table', { name: 'Columns of measurements' }).waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.getByRole('table', { name: 'Preview of measurements' }).waitFor();

      // The dark theme is one keyboard-reachable toggle away.
      await page.getByRole('button', { name: 'Switch to dark theme' }).click();
      await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
      // The toggle's tooltip, shown while the pointer rests on it, is not part of the screen.
      await page.mouse.move(640, 850);
      await page.getByRole('tooltip').waitFor({ state: 'detached' });
      await saveScreenshot(page, 'project-detail-dark');
      await expectAccessible(page, 'project-detail-dark');
      await context.close();
    });

    it('signs in through a magic link, lands on next and drops the ticket from the address bar', async () => {
      const session = await login(server, ADMIN.email, ADMIN.password);
      const link = await call<{ url: string }>(server, 'POST', '/auth/magic_link', {
        token: session.access_token,
        json: { next: '/projects?scope=public' },
      });
      expect(link.status).toBe(201);
      const url = new URL(link.body.url);
      expect(url.pathname).toBe('/auth/magic');
      const path = `${url.pathname}${url.hash}`;

      const { context, page } = await openPage(server, path);
      await page.waitForURL((current) => current.pathname === '/projects' && current.search === '?scope=public');
      await page.getByRole('button', { name: `Account menu for ${ADMIN.email}` }).waitFor();
      expect(page.url()).not.toContain('#');
      expect(page.url()).not.toContain('ticket');
      expect(await page.evaluate('location.hash')).toBe('');
      // Going back never shows the ticket again.
      await page.goBack().catch(() => null);
      expect(page.url()).not.toContain('ticket');
      await context.close();

      // The same link a second time: spent.
      const again = await openPage(server, path);
      await again.page.getByText('already been used or has expired').waitFor();
      await again.page.getByRole('link', { name: 'Sign in' }).waitFor();
      expect(again.page.url()).not.toContain('ticket');
      await saveScreenshot(again.page, 'magic-link-spent');
      await expectAccessible(again.page, 'magic-link-spent');
      await again.context.close();
    });
  });

  describeBrowser('auth mode without registration', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({ SERVICE_AUTH_REGISTRATION_DISABLED: 'true' });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('offers no Register link', async () => {
      const { context, page } = await openPage(server, '/auth/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).waitFor();
      expect(await page.getByRole('link', { name: 'Register' }).count()).toBe(0);
      await page.goto(`${server.url}/auth/register`);
      await page.getByRole('heading', { name: 'Registration is closed' }).waitFor();
      await context.close();
    });
  });

  describeBrowser('single-user mode', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({ SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('shows the badge and no sign-in at all', async () => {
      const { context, page } = await openPage(server, '/');
      await page.waitForURL(/\/home$/);
      await page.getByText('Single User Mode').waitFor();
      await page.getByRole('heading', { name: 'Home' }).waitFor();
      expect(await page.getByRole('button', { name: 'Sign In' }).count()).toBe(0);
      expect(await page.getByLabel(/^Password/).count()).toBe(0);
      await saveScreenshot(page, 'single-user');
      await expectAccessible(page, 'single-user');
      // The sign-in page does not exist in this mode.
      await page.goto(`${server.url}/auth/sign-in`);
      await page.waitForURL(/\/projects$/);
      await context.close();
    });

    it('has no account administration even though everyone acts as an admin', async () => {
      const { context, page } = await openPage(server, '/projects');
      const navigation = page.getByRole('navigation', { name: 'Main navigation' });
      await navigation.getByRole('link', { name: 'Projects' }).waitFor();
      expect(await navigation.getByRole('link', { name: 'Users' }).count()).toBe(0);
      expect(await navigation.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      await page.goto(`${server.url}/admin/users`);
      await page.getByText('There is no account administration in this access mode.').waitFor();
      await context.close();
    });
  });

  describeBrowser('public mode with an access code', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({
        SERVICE_AUTH_PUBLIC_MODE: 'true',
        SERVICE_AUTH_PUBLIC_ACCESS_CODE: 'open-sesame',
      });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('lets anonymous visitors browse, and the Sign In modal creates a temporary user only with the code', async () => {
      const { context, page } = await openPage(server, '/');
      await page.waitForURL(/\/home$/);
      await page.getByText('Public Mode').waitFor();
      // The home page lists public projects to anonymous visitors too; the Projects page has them all.
      await page.getByRole('region', { name: 'Example and public projects' }).waitFor();
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Projects' }).click();
      await page.waitForURL(/\/projects$/);
      await page.getByRole('tab', { name: 'Public' }).waitFor();
      await page.getByRole('button', { name: 'Sign In' }).click();
      const modal = page.getByRole('dialog', { name: 'Sign in' });
      await modal.getByText('24 hours').waitFor();
      await modal.getByLabel('Access code').fill('wrong-code');
      await transitionsEnded(page);
      await saveScreenshot(page, 'public-sign-in-modal');
      await expectAccessible(page, 'public-sign-in-modal');
      await modal.getByRole('button', { name: 'Continue with a temporary account' }).click();
      await modal.getByText('That access code is not right.').waitFor();
      await modal.getByLabel('Access code').fill('open-sesame');
      await modal.getByRole('button', { name: 'Continue with a temporary account' }).click();
      await page.getByText(/Temporary session · 2[34] h/).waitFor();
      await page.getByRole('tab', { name: 'My projects' }).waitFor();
      await saveScreenshot(page, 'public-temporary-user');
      await expectAccessible(page, 'public-temporary-user');
      await context.close();
    });
  });

  describeBrowser('demo mode', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('shows the badge and creates a temporary user without a code', async () => {
      const { context, page } = await openPage(server, '/projects');
      await page.getByText('Demo Mode').waitFor();
      await page.getByRole('button', { name: 'Sign In' }).click();
      const modal = page.getByRole('dialog', { name: 'Sign in' });
      await modal.getByRole('button', { name: 'Continue with a temporary account' }).waitFor();
      expect(await modal.getByLabel('Access code').count()).toBe(0);
      await modal.getByRole('button', { name: 'Continue with a temporary account' }).click();
      await page.getByText(/Temporary session · 2[34] h/).waitFor();
      await context.close();
    });
  });
});
