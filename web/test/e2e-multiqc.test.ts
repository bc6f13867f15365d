import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ampliseqProject } from '../../server/test/multiqc/ampliseq-fixture.js';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
} from '../../test/support/browser.js';
import { ADMIN, call, login, type Session, type TestServer } from '../../test/support/test-server.js';

/**
 * A MultiQC dashboard in Chromium, on the real nf-core/ampliseq report: the bar and line plots
 * drawn, a click on a sample's bar narrowing the general statistics (docs/dashboards.md, "MultiQC plots").
 */

let browser: Browser;
let server: TestServer;
let session: Session;
let token: string;
let ids: Awaited<ReturnType<typeof ampliseqProject>>;

/** The number of samples a MultiQC cell shows, once its plot or table has drawn. */
async function samplesShown(page: Page, name: string): Promise<string | null> {
  const cell = page.getByRole('region', { name, exact: true });
  if ((await cell.getAttribute('data-state')) !== 'ready') return null;
  const plot = cell.locator('[data-samples]').first();
  if ((await plot.count()) === 0) return null;
  const chart = await plot.getAttribute('data-chart-state');
  if (chart !== null && chart !== 'rendered') return null;
  return plot.getAttribute('data-samples');
}

/** Clicks a bar of the horizontal bar plot in cell `name`, moving down the canvas until ECharts shows a pointer. */
async function clickASampleBar(page: Page, name: string): Promise<void> {
  const selector = `section[aria-label=${JSON.stringify(name)}] canvas`;
  const box = await page.locator(selector).first().boundingBox();
  if (box === null) throw new Error(`${name} has no canvas`);
  const cursor = `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).cursor`;
  const x = box.x + box.width * 0.5;
  for (let y = box.y + box.height * 0.3; y < box.y + box.height; y += 3) {
    await page.mouse.move(x, y);
    if ((await page.evaluate(cursor)) === 'pointer') {
      await page.mouse.click(x, y);
      return;
    }
  }
  throw new Error(`no bar found down ${name}`);
}

describeBrowser('MultiQC dashboards in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    session = await login(server, ADMIN.email, ADMIN.password);
    token = session.access_token;
    ids = await ampliseqProject(server, token);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws the bar and line plots, and a clicked sample narrows the general statistics', async () => {
    const plot = (component_id: string, title: string, anchor: string) => ({
      component_id,
      title,
      type: 'multiqc',
      data_collection_id: ids.multiqcId,
      plot: anchor,
    });
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: ids.projectId,
        title: 'Sequencing QC',
        is_public: true,
        components: [
          plot('counts', 'Sequence counts', 'fastqc_sequence_counts_plot'),
          plot('quality', 'Mean quality', 'fastqc_per_base_sequence_quality_plot'),
          plot('general', 'General statistics', 'general_stats_table'),
        ],
        layout: [
          { component_id: 'counts', x: 0, y: 0, w: 6, h: 9 },
          { component_id: 'quality', x: 6, y: 0, w: 6, h: 9 },
          { component_id: 'general', x: 0, y: 9, w: 12, h: 8 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboard.body.dashboard_id}`, {
      height: 1400,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Sequencing QC' }).waitFor();
    await expect.poll(() => samplesShown(page, 'Sequence counts'), { timeout: 20_000 }).toBe('24');
    await expect.poll(() => samplesShown(page, 'Mean quality'), { timeout: 20_000 }).toBe('24');
    await expect.poll(() => samplesShown(page, 'General statistics'), { timeout: 20_000 }).toBe('36');
    await saveScreenshot(page, 'multiqc-dashboard');

    await clickASampleBar(page, 'Sequence counts');
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^Sequence counts: SRR\d+_[12]$/)
      .waitFor();
    // The read's sample, and its two reads, in the general statistics; its two reads in the line plot.
    await expect.poll(() => samplesShown(page, 'General statistics'), { timeout: 20_000 }).toBe('3');
    await expect.poll(() => samplesShown(page, 'Mean quality'), { timeout: 20_000 }).toBe('2');
    await expectAccessible(page, 'MultiQC dashboard');
    // MultiQC's colour bars behind the general statistics' numbers, from each column's scale.
    const bars = page.getByRole('region', { name: 'General statistics' }).locator('td[data-bar]');
    expect(await bars.count()).toBeGreaterThan(0);
    expect(await bars.first().getAttribute('style')).toMatch(/linear-gradient/);
    await context.close();
  });

  it('adds a MultiQC plot from the builder, its picker grouped by module', async () => {
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: { project_id: ids.projectId, title: 'Built QC' },
    });
    expect(created.status, created.text).toBe(201);
    const dashboardId = created.body.dashboard_id;
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboardId}?edit=1`, {
      timeout: 20_000,
      session,
    });
    await page.getByRole('toolbar', { name: 'Dashboard editor' }).waitFor();
    await page.getByRole('button', { name: 'Add component' }).click();
    await page.getByRole('menuitem', { name: 'MultiQC plot', exact: true }).click();
    const panel = page.getByRole('complementary', { name: 'New multiqc plot' });
    await panel.getByLabel('Data collection').selectOption({ label: 'ampliseq / multiqc' });
    const picker = panel.getByLabel('MultiQC plot');
    await expect.poll(() => picker.locator('optgroup').count(), { timeout: 20_000 }).toBeGreaterThan(1);
    const groups = await picker
      .locator('optgroup')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('label')));
    expect(groups).toEqual(expect.arrayContaining(['General statistics', 'FastQC', 'Cutadapt']));
    await picker.selectOption('cutadapt_filtered_reads_plot');
    await panel.getByRole('region', { name: 'Preview' }).locator('[data-chart-state="rendered"]').waitFor();
    await expectAccessible(page, 'the MultiQC plot builder');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    const saved = await call<{ components: { type: string; plot?: string }[] }>(
      server,
      'GET',
      `/dashboards/${dashboardId}`,
      { token },
    );
    expect(saved.body.components).toEqual([
      expect.objectContaining({ type: 'multiqc', plot: 'cutadapt_filtered_reads_plot' }),
    ]);
    await context.close();
  });
});
