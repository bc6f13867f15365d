import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Scheduler } from '@service/server';
import { expect, it, vi } from 'vitest';
import { describeBrowser, expectAccessibleInBothThemes, openPage, saveScreenshot } from '../../test/support/browser.js';
import { call, createUser } from '../../test/support/test-server.js';
import { useBrowserSuite } from './support/e2e-dashboards.js';

// A hang guard, not a speed check: on a loaded two-core machine the browser steps add up.
vi.setConfig({ testTimeout: 120_000 });

interface Workflow {
  workflow_id: string;
  schedule: { cron: string; timezone?: string } | null;
  watch: { interval_seconds: number } | null;
}

/**
 * A workflow's schedule and watch set, changed and removed on its card in the project page
 * (docs/jobs.md "Schedules and watched folders"), saved through the API as project.yaml has them;
 * the run a schedule starts says so in the ingestion history.
 */
describeBrowser('schedules and watches on the project page, in a real browser', () => {
  const suite = useBrowserSuite({});

  it('sets a schedule with a preview of its next runs and a watch, then removes the schedule', async () => {
    const { browser, server } = suite;
    const owner = await createUser(server, suite.token, 'owner@example.org');
    const token = owner.access_token;
    const folder = join(server.database.dataDir, 'imports', 'nightly');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.csv'), 'x\n1\n');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token,
      json: { name: 'Nightly' },
    });
    const projectId = project.body.project_id;
    const made = await call<Workflow>(server, 'POST', `/projects/${projectId}/workflows`, {
      token,
      json: { name: 'nightly', data_location: { structure: 'flat', locations: [folder] } },
    });
    expect(made.status, made.text).toBe(201);
    const workflowId = made.body.workflow_id;
    const collection = await call(server, 'POST', `/workflows/${workflowId}/datacollections`, {
      token,
      json: { tag: 't', pattern: '[^/]+\\.csv', format: 'csv' },
    });
    expect(collection.status, collection.text).toBe(201);
    const stored = async () => (await call<Workflow>(server, 'GET', `/workflows/${workflowId}`, { token })).body;

    const { page } = await openPage(browser, server, `/projects/${projectId}`, { session: owner, timeout: 20_000 });
    const card = page.getByTestId('workflow-timing');
    await expect.poll(() => card.textContent()).toBe('Runs only when started');
    await page.getByRole('button', { name: 'Schedule of nightly' }).click();
    const dialog = page.getByRole('dialog', { name: 'When nightly ingests by itself' });
    await dialog.getByRole('checkbox', { name: 'Run on a schedule' }).check();
    await dialog.getByRole('textbox', { name: 'Cron expression' }).fill('30 6 * * 1-5');
    // Mantine's searchable select: a combobox (or a textbox, by version) named by its label.
    const zone = dialog
      .getByRole('combobox', { name: 'Time zone' })
      .or(dialog.getByRole('textbox', { name: 'Time zone' }));
    await zone.fill('Europe/Paris');
    await page.getByRole('option', { name: 'Europe/Paris', exact: true }).click();
    // The next three runs, read in Paris time: weekdays at 06:30.
    const runs = dialog.getByRole('status', { name: 'Next runs' }).getByRole('listitem');
    await expect.poll(() => runs.count()).toBe(3);
    for (const run of await runs.allTextContents()) expect(run).toMatch(/^(Mon|Tue|Wed|Thu|Fri), .*06:30 CES?T$/);
    // An expression that names no time says so at once and cannot be saved.
    await dialog.getByRole('textbox', { name: 'Cron expression' }).fill('0 3 30 2 *');
    await dialog.getByText('names no time that will ever come').waitFor();
    expect(await dialog.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Cron expression' }).fill('30 6 * * 1-5');
    await dialog.getByRole('checkbox', { name: 'Watch the data folders' }).check();
    await dialog.getByRole('textbox', { name: 'Look every (seconds)' }).fill('60');
    await dialog.getByText('every 1 min').waitFor();
    await expectAccessibleInBothThemes(page, 'workflow schedule dialog');
    await saveScreenshot(dialog, 'workflow-schedule');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => card.textContent()).toBe('Scheduled: 30 6 * * 1-5 (Europe/Paris) · Watched every 1 min');
    expect(await stored()).toMatchObject({
      schedule: { cron: '30 6 * * 1-5', timezone: 'Europe/Paris' },
      watch: { interval_seconds: 60 },
    });
    // The same definition as project.yaml has it.
    const yaml = await fetch(`${server.url}/service/api/v1/projects/${projectId}/yaml`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await yaml.text();
    expect(text).toMatch(/schedule:\s*\n\s+cron: 30 6 \* \* 1-5\n\s+timezone: Europe\/Paris/);
    expect(text).toMatch(/watch:\s*\n\s+interval_seconds: 60/);

    // Its next occurrence, as the scheduler starts it: the run says it came from the schedule.
    const scheduler = new Scheduler({
      database: server.context.database,
      ingestion: server.context.ingestion,
      users: server.context.users.repository,
      allowedRoots: server.context.config.ingestion.allowedRoots,
      log: server.app.log,
    });
    const outcomes = await scheduler.tick(new Date(Date.now() + 8 * 86_400_000));
    expect(outcomes.find((outcome) => outcome.trigger === 'schedule')).toMatchObject({ outcome: 'started' });
    const history = page.getByRole('table', { name: 'Ingestion history' });
    await history.getByRole('cell', { name: 'schedule', exact: true }).waitFor({ timeout: 20_000 });

    // Removed: the schedule goes, the watch stays.
    await page.getByRole('button', { name: 'Schedule of nightly' }).click();
    await dialog.getByRole('checkbox', { name: 'Run on a schedule' }).uncheck();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => card.textContent()).toBe('Watched every 1 min');
    expect(await stored()).toMatchObject({ schedule: null, watch: { interval_seconds: 60 } });
  });
});
