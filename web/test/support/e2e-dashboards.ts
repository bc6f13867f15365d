import { readFileSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { expectAccessible, launchBrowser, preferColorScheme, startWebServer } from '../../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  login,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/*
 * What the dashboards' browser tests share: Chromium and a public-mode server for a suite, tables
 * and dashboards made through the API, and reading what a page draws (cards, the attributes each
 * chart sets once ECharts has drawn its option, the filters in the address bar).
 */

/** The browser, the server and the admin's token of a suite, set once its `beforeAll` ran. */
export interface BrowserSuite {
  browser: Browser;
  server: TestServer;
  token: string;
}

/**
 * Starts Chromium and a server (public mode unless `env` says otherwise) before the suite's tests,
 * signed in as the admin; stops both after.
 */
export function useBrowserSuite(env: Record<string, string> = { SERVICE_AUTH_PUBLIC_MODE: 'true' }): BrowserSuite {
  const suite = {} as BrowserSuite;
  beforeAll(async () => {
    suite.browser = await launchBrowser();
    suite.server = await startWebServer(env);
    ({ access_token: suite.token } = await login(suite.server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
  });
  return suite;
}

/** A fixture of server/test/fixtures/ampliseq as comma-separated text (the tables are tab-separated). */
export function ampliseqCsv(name: string): string {
  const url = new URL(`../../../server/test/fixtures/ampliseq/${name}`, import.meta.url);
  return readFileSync(url, 'utf8').replaceAll('\t', ',');
}

/** Rows of a comma-separated table as records, by column name (the fixtures have no quoted commas). */
export function csvRecords(csv: string): Record<string, string>[] {
  const [head = '', ...lines] = csv.trim().split('\n');
  const names = head.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, at) => [names[at], value])));
}

/**
 * `count` penguins: species in turn Adelie, Gentoo, Chinstrap; body mass 3,000 g, 3,100 g, …
 * (one step of 100 g per penguin), so every filter's count is known.
 */
export function penguins(count: number): string {
  const species = ['Adelie', 'Gentoo', 'Chinstrap'];
  const rows = Array.from({ length: count }, (_, i) => `P${i + 1},${species[i % 3]},${3000 + i * 100}`);
  return `${['sample,species,mass', ...rows].join('\n')}\n`;
}

/** Builds a collection's table from what was uploaded to it. */
export async function upsertTable(suite: BrowserSuite, collectionId: string): Promise<void> {
  const upserted = await call(suite.server, 'POST', '/deltatables/upsert', {
    token: suite.token,
    json: { data_collection_id: collectionId },
  });
  expect(upserted.status, upserted.text).toBe(200);
}

/** A project of its own holding one table of `csv`, built. */
export async function projectWithTable(suite: BrowserSuite, name: string, csv: string) {
  const project = await createProjectWithUpload(suite.server, suite.token, name, csv);
  await upsertTable(suite, project.collectionId);
  return project;
}

/** A new project and workflow, to which `addTable` adds tables. */
export async function newWorkflow(suite: BrowserSuite, name: string) {
  const { server, token } = suite;
  const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name } });
  const projectId = project.body.project_id;
  const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${projectId}/workflows`, {
    token,
    json: { name },
  });
  return { projectId, workflowId: workflow.body.workflow_id };
}

/**
 * A table of the workflow: a collection `tag` holding `csv` (and `files`, path → text, that its
 * pattern also takes, e.g. a Newick tree), built. Answers the collection's id.
 */
export async function addTable(
  suite: BrowserSuite,
  workflowId: string,
  tag: string,
  csv: string,
  files: Record<string, string> = {},
): Promise<string> {
  const { server, token } = suite;
  const extra = Object.keys(files).map((path) => `|${path.replaceAll('.', '\\.')}`);
  const collection = await call<{ data_collection_id: string }>(
    server,
    'POST',
    `/workflows/${workflowId}/datacollections`,
    { token, json: { tag, pattern: `${tag}\\.csv${extra.join('')}`, format: 'csv' } },
  );
  const id = collection.body.data_collection_id;
  expect(await uploadFile(server, token, id, { path: `${tag}.csv`, content: csv })).toBe(201);
  for (const [path, content] of Object.entries(files)) {
    expect(await uploadFile(server, token, id, { path, content })).toBe(201);
  }
  await upsertTable(suite, id);
  return id;
}

/** A figure component of collection `dc`. */
export function figure(id: string, title: string, dc: string, fields: Record<string, unknown>) {
  return { component_id: id, type: 'figure', title, data_collection_id: dc, ...fields };
}

/** A select widget on the species (the penguins' table). */
export const speciesSelect = (collectionId: string) =>
  ({
    component_id: 'species',
    type: 'interactive',
    title: 'Species',
    data_collection_id: collectionId,
    widget: 'select',
    column: 'species',
  }) as const;

/** A public dashboard made through the API; answers its id. */
export async function createDashboard(
  suite: BrowserSuite,
  projectId: string,
  title: string,
  components: Record<string, unknown>[],
  layout: { component_id: string; x: number; y: number; w: number; h: number }[],
): Promise<string> {
  const created = await call<{ dashboard_id: string }>(suite.server, 'POST', '/dashboards', {
    token: suite.token,
    json: { project_id: projectId, title, is_public: true, components, layout },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.dashboard_id;
}

/** What the card titled `name` reads (as shown, with thousands separators), or null before it has a value. */
export async function cardValue(page: Page, name: string): Promise<string | null> {
  const value = page.getByRole('region', { name, exact: true }).locator('[data-card-value]');
  return (await value.count()) === 0 ? null : value.textContent();
}

/** Waits until the card titled `name` reads `count`. */
export async function counted(page: Page, name: string, count: string | number, timeout = 15_000): Promise<void> {
  await expect.poll(() => cardValue(page, name), { timeout }).toBe(String(count));
}

/** The figure titled `name`, scrolled to (a chart out of sight waits to be), once ECharts has drawn it. */
export async function renderedFigure(page: Page, name: string): Promise<Locator> {
  const region = page.getByRole('region', { name, exact: true });
  await region.scrollIntoViewIfNeeded();
  await region.locator('[data-chart-state="rendered"]').waitFor();
  return region;
}

/** The accessible description of a drawn figure: what its chart shows, from the option drawn. */
export function described(figure: Locator): Promise<string | null> {
  return figure.locator('[role="img"]').first().getAttribute('aria-label');
}

/** How many rows of its answer a drawn figure shows (`data-chart-items`). */
export async function drawnItems(figure: Locator): Promise<number> {
  return Number(await figure.locator('[data-chart-items]').getAttribute('data-chart-items'));
}

/** A clickable item of a chart: its label and a point inside its mark, in the chart element's pixels. */
export interface ChartTarget {
  label: string;
  x: number;
  y: number;
}

/** The clickable items a drawn figure lays out (`data-chart-targets`). */
export async function chartTargets(figure: Locator): Promise<ChartTarget[]> {
  const chart = figure.locator('[data-chart-targets]');
  await chart.waitFor();
  return JSON.parse((await chart.getAttribute('data-chart-targets')) ?? '[]') as ChartTarget[];
}

/** Clicks the item of the figure labelled `label`. */
export async function clickTarget(figure: Locator, label: string): Promise<void> {
  const target = (await chartTargets(figure)).find((each) => each.label === label);
  if (target === undefined) throw new Error(`no target labelled ${label}`);
  await figure.locator('[data-chart-targets]').click({ position: { x: target.x, y: target.y } });
}

/** The filters the address bar holds (`?filters=`), parsed. */
export function addressFilters(page: Page): { component_id: string; value: unknown }[] {
  return JSON.parse(new URL(page.url()).searchParams.get('filters') ?? '[]');
}

/** Waits until the address bar holds a filter of component `id`; answers its value. */
export async function filterOf(page: Page, id: string): Promise<unknown> {
  const find = () => addressFilters(page).find((filter) => filter.component_id === id);
  await expect.poll(() => find() !== undefined, { timeout: 15_000 }).toBe(true);
  return find()?.value;
}

/** Drags across the figure's canvas from `from` to `to` (fractions of its width), at `height` (a fraction). */
export async function brushAcross(page: Page, figure: Locator, from: number, to: number, height = 0.55) {
  const box = await figure.locator('canvas').first().boundingBox();
  if (box === null) throw new Error('the figure has no canvas');
  const y = box.y + box.height * height;
  await page.mouse.move(box.x + box.width * from, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * to, y, { steps: 4 });
  await page.mouse.up();
}

/**
 * In the page, whether an element lies more than 200 px beyond the viewport: the app asks for the
 * data of such a component after a filter change, and draws its chart, once scrolled to
 * (web/src/dashboard/useInSight.ts).
 */
export const OUT_OF_SIGHT = `((element) => {
  const box = element.getBoundingClientRect();
  return box.bottom < -200 || box.top > innerHeight + 200;
})`;

/** In the page, whether a chart element (`[data-chart-state]`) is done: drawn, or out of sight and waiting to be scrolled to. */
export const CHART_SETTLED = `((chart) => chart.getAttribute('data-chart-state') === 'rendered' ||
  (chart.getAttribute('data-chart-state') === 'waiting' && ${OUT_OF_SIGHT}(chart)))`;

/**
 * Waits until every cell in sight has drawn the filters now in the address bar (the attributes
 * the bench reads too), charts finished, no loader left; a cell out of sight waits to be scrolled to.
 */
const DRAWN = `(() => {
  // Tabs opened before keep their grids, hidden, as they were: what counts is what shows.
  const shown = (selector) => [...document.querySelectorAll(selector)].filter((element) => element.closest('[hidden]') === null);
  const inSight = (element) => !${OUT_OF_SIGHT}(element.closest('[data-component-id]') ?? element);
  const key = document.querySelector('[data-view-key]')?.getAttribute('data-view-key');
  const cells = shown('[data-component-id]');
  return key != null && cells.length > 0 && cells.every((cell) => cell.getAttribute('data-drawn-key') === key || !inSight(cell)) &&
    shown('[data-chart-state]').every(${CHART_SETTLED}) &&
    shown('.mantine-Loader-root').filter(inSight).length === 0;
})()`;

export async function drawn(page: Page, timeout = 15_000): Promise<void> {
  // Polled through evaluate: waitForFunction evaluates a string in the page, which its CSP refuses.
  await expect.poll(() => page.evaluate(DRAWN), { timeout }).toBe(true);
}

/** axe-core on the page in the light theme, then in the dark one (every chart redrawn in it), and back. */
export async function expectAccessibleLightAndDark(page: Page, screen: string): Promise<void> {
  await preferColorScheme(page, 'light');
  await expectAccessible(page, screen);
  await preferColorScheme(page, 'dark');
  // Another tab's charts, hidden, draw in the new theme when it opens.
  await expect.poll(() => page.locator('[data-chart-theme="light"]:visible').count(), { timeout: 15_000 }).toBe(0);
  await drawn(page);
  await expectAccessible(page, `${screen}, dark`);
  await preferColorScheme(page, 'light');
}
