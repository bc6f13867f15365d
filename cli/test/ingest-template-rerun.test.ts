import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startTestServer, type TestServer } from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

// A hang guard, not a speed check: each CLI process loads the server's modules and DuckDB.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 240_000 });

/**
 * `service ingest --template` run again on the same folder after the pipeline ran again
 * (docs/templates.md "Re-running"): the first run had no differential abundance results yet, the
 * second has them. The new data comes in; an unedited dashboard takes the new tab, an edited one
 * keeps its edit and is offered the new version.
 */
const FIXTURE = fileURLToPath(new URL('../../server/test/fixtures/ampliseq-results/', import.meta.url));
const KEY = 'provisioning-key-for-the-rerun-test-0123456789abcd';
const LATER = ['ancombc_results.tsv', 'ma_canonical.tsv'];

let server: TestServer;
let parent: string;

beforeAll(async () => {
  server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
  parent = await mkdtemp(join(tmpdir(), 'service-rerun-'));
});
afterAll(async () => {
  await server?.stop();
  await server?.database.drop();
  await rm(parent, { recursive: true, force: true });
});

/** A copy of the results as the first run left them: without the differential abundance tables. */
async function firstRun(name: string): Promise<string> {
  const dir = join(parent, name, 'ampliseq_run');
  await cp(FIXTURE, dir, { recursive: true, filter: (source) => !LATER.some((file) => source.endsWith(file)) });
  return dir;
}
/** The pipeline ran again: its differential abundance results are there now, and one more sample's diversity. */
async function secondRun(dir: string): Promise<void> {
  await Promise.all(LATER.map((file) => cp(join(FIXTURE, file), join(dir, file))));
  await appendFile(join(dir, 'alpha_diversity_multi_canonical.tsv'), `${NEW_SAMPLE}\n`);
}
const NEW_SAMPLE = ['SRR99999999', 'Soil', '6.25', '610.0', '47.5', '0.69'].join('\t');

async function ingest(dir: string, email: string) {
  const result = await runCli([
    'ingest',
    dir,
    '--user',
    email,
    '--server',
    server.url,
    '--provisioning-key',
    KEY,
    '--template',
    'nf-core/ampliseq/2.16.0',
  ]);
  expect(result.code, result.stderr).toBe(0);
  const link = new URL(result.stdout.trim());
  const dashboardId = (new URLSearchParams(link.hash.slice(1)).get('next') ?? '').replace('/dashboards/', '');
  const session = await call<{ access_token: string }>(server, 'POST', '/auth/provision_user', {
    json: { email },
    headers: { 'x-provisioning-key': KEY },
  });
  return { dashboardId, token: session.body.access_token, stderr: result.stderr };
}

interface Dashboard {
  title: string;
  description: string;
  tabs: { tab_id: string }[];
  components: { component_id: string }[];
  layout: unknown[];
}
const dashboardOf = async (id: string, token: string) =>
  (await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token })).body;
const revisionsOf = async (id: string, token: string) =>
  (await call<{ total: number }>(server, 'GET', `/dashboards/${id}/revisions`, { token })).body.total;
async function card(id: string, token: string, tabId: string, componentId: string): Promise<unknown> {
  const answer = await call<{ components: Record<string, { value?: number }> }>(
    server,
    'POST',
    `/dashboards/${id}/data`,
    { token, json: { tab_id: tabId } },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body.components[componentId]?.value;
}
const taxaAnalysed = (id: string, token: string) => card(id, token, 'differential', 'taxa_analysed');
const rowsOf = async (name: string) => (await readFile(join(FIXTURE, name), 'utf8')).trimEnd().split('\n').length - 1;

describe('service ingest --template, run again after the pipeline ran again', () => {
  it('adds the new results and updates the unedited dashboard in place, as a new revision', async () => {
    const dir = await firstRun('unedited');
    const first = await ingest(dir, 'una@example.org');
    const before = await dashboardOf(first.dashboardId, first.token);
    expect(before.tabs.map((tab) => tab.tab_id)).not.toContain('differential');
    const samples = await rowsOf('alpha_diversity_multi_canonical.tsv');
    expect(await card(first.dashboardId, first.token, 'alpha', 'alpha_samples')).toBe(samples);

    await secondRun(dir);
    const second = await ingest(dir, 'una@example.org');
    expect(second.dashboardId).toBe(first.dashboardId);
    expect(second.stderr).toContain(`Dashboard ${first.dashboardId} updated.`);
    const after = await dashboardOf(first.dashboardId, first.token);
    expect(after.tabs.map((tab) => tab.tab_id)).toContain('differential');
    expect(await revisionsOf(first.dashboardId, first.token)).toBe(2);
    expect(await taxaAnalysed(first.dashboardId, first.token)).toBe(await rowsOf('ancombc_results.tsv'));
    // The new run's sample replaces the folder's file: its rows once each, the new one with them.
    expect(await card(first.dashboardId, first.token, 'alpha', 'alpha_samples')).toBe(samples + 1);

    // Nothing new: the dashboard is left as it is.
    const third = await ingest(dir, 'una@example.org');
    expect(third.stderr).toContain(`Dashboard ${first.dashboardId} unchanged.`);
    expect(await revisionsOf(first.dashboardId, first.token)).toBe(2);
  });

  it("keeps a person's edits and offers the new generated version, which they may apply", async () => {
    const dir = await firstRun('edited');
    const first = await ingest(dir, 'eda@example.org');
    const { dashboardId, token } = first;
    const made = await dashboardOf(dashboardId, token);
    const { tabs, components, layout } = made;
    const edited = await call(server, 'PUT', `/dashboards/${dashboardId}`, {
      token,
      json: { title: 'Our river samples', description: 'Edited by Eda', tabs, components, layout },
    });
    expect(edited.status, edited.text).toBe(200);

    await secondRun(dir);
    const second = await ingest(dir, 'eda@example.org');
    expect(second.dashboardId).toBe(dashboardId);
    expect(second.stderr).toContain('was edited since it was generated');
    const kept = await dashboardOf(dashboardId, token);
    expect([kept.title, kept.description]).toEqual(['Our river samples', 'Edited by Eda']);
    expect(kept.tabs.map((tab) => tab.tab_id)).not.toContain('differential');
    // The new data is in all the same.
    const offer = await call<{ edited: boolean; offer: { tabs: { tab_id: string }[] } | null }>(
      server,
      'GET',
      `/dashboards/${dashboardId}/generated`,
      { token },
    );
    expect(offer.body.edited).toBe(true);
    expect(offer.body.offer?.tabs.map((tab) => tab.tab_id)).toContain('differential');

    const applied = await call<Dashboard>(server, 'POST', `/dashboards/${dashboardId}/generated/apply`, { token });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.tabs.map((tab) => tab.tab_id)).toContain('differential');
    expect(await taxaAnalysed(dashboardId, token)).toBe(await rowsOf('ancombc_results.tsv'));
  });
});
