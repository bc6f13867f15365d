import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  launchBrowser,
  saveScreenshot,
  startWebServer,
  watchPolicyViolations,
} from '../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  login,
  type Session,
  type TestServer,
} from '../../test/support/test-server.js';

let browser: Browser;
let server: TestServer;
let admin: Session;

/** Penguins weighed on days of spring 2024. */
function weighings(count: number): string {
  const species = ['Adelie', 'Gentoo', 'Chinstrap'];
  const rows = Array.from(
    { length: count },
    (_, i) => `P${i + 1},${species[i % 3]},${3000 + i * 100},2024-0${1 + (i % 5)}-1${i % 10}`,
  );
  return `${['sample,species,mass,weighed_on', ...rows].join('\n')}\n`;
}

/** What clips in a cell: text wider than its box, content taller than the cell's body, a date input narrower than its date. */
interface Clipped {
  cell: string;
  what: string;
  needs: number;
  has: number;
}

describeBrowser('the dashboard editor beside its side panel', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
    admin = await login(server, ADMIN.email, ADMIN.password);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('cuts no title, number, filter or date of the other cells while a component is edited', async () => {
    const { projectId, collectionId } = await createProjectWithUpload(
      server,
      admin.access_token,
      'Spring weighings',
      weighings(30),
    );
    const built = await call(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId },
    });
    expect(built.status, built.text).toBe(200);
    const of = { data_collection_id: collectionId };
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: projectId,
        title: 'Narrow cells',
        components: [
          { component_id: 'count', type: 'card', title: 'Penguins weighed', ...of, agg: 'count' },
          {
            component_id: 'when',
            type: 'interactive',
            title: 'Weighed on',
            ...of,
            widget: 'date_range',
            column: 'weighed_on',
          },
          {
            component_id: 'kind',
            type: 'interactive',
            title: 'Species',
            ...of,
            widget: 'multiselect',
            column: 'species',
          },
          {
            component_id: 'mass',
            type: 'figure',
            title: 'Mass by species',
            ...of,
            chart: 'bar',
            x: 'species',
            y: 'mass',
            agg: 'mean',
          },
        ],
        layout: [
          { component_id: 'count', x: 0, y: 0, w: 2, h: 2 },
          { component_id: 'when', x: 2, y: 0, w: 3, h: 2 },
          { component_id: 'kind', x: 5, y: 0, w: 2, h: 2 },
          { component_id: 'mass', x: 7, y: 0, w: 5, h: 5 },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    watchPolicyViolations(context);
    const { access_token, refresh_token, user } = admin;
    const stored = JSON.stringify({ access_token, refresh_token, user });
    await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
    await context.addInitScript(`localStorage.setItem('service.demo-tour', 'skipped')`);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${server.url}/dashboards/${created.body.dashboard_id}?edit=1`);
    await page.locator('[data-card-value]').waitFor();
    await page.getByRole('button', { name: 'Edit Mass by species' }).click();
    await page.getByRole('complementary', { name: 'Edit chart' }).waitFor();
    const dateInput = page.getByRole('textbox', { name: 'Weighed on from' });
    await dateInput.waitFor();

    // Measured in the page (a string: this package's types know no DOM).
    const clipped = await page.evaluate<Clipped[]>(`(() => {
      const found = [];
      for (const cell of document.querySelectorAll('.dashboard-edit-cell')) {
        const name = cell.getAttribute('aria-label') ?? '';
        const wide = (element, what) => {
          if (element !== null && element.scrollWidth > element.clientWidth + 1) {
            found.push({ cell: name, what, needs: element.scrollWidth, has: element.clientWidth });
          }
        };
        wide(cell.querySelector('.dashboard-edit-title'), 'title');
        wide(cell.querySelector('.dashboard-drag-handle'), 'title bar');
        wide(cell.querySelector('[data-card-value]'), 'number');
        const body = cell.querySelector('.dashboard-edit-body');
        if (body !== null && body.scrollHeight > body.clientHeight + 1) {
          found.push({ cell: name, what: 'body', needs: body.scrollHeight, has: body.clientHeight });
        }
        for (const input of cell.querySelectorAll('input[type="date"]')) {
          // The same input, free to take the width its whole date needs.
          const probe = input.cloneNode();
          probe.style.width = 'auto';
          probe.style.minWidth = '0';
          probe.style.position = 'absolute';
          document.body.append(probe);
          const needs = probe.getBoundingClientRect().width;
          probe.remove();
          const has = input.getBoundingClientRect().width;
          if (has + 0.5 < needs) found.push({ cell: name, what: 'date', needs, has });
        }
      }
      return found;
    })()`);
    await saveScreenshot(page, 'dashboard-editor-panel');
    expect(clipped).toEqual([]);
    await context.close();
  }, 120_000);
});
