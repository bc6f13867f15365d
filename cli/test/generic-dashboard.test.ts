import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  call,
  type Dialect,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
} from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

/**
 * The generic overview dashboard (docs/dashboards.md "Overview dashboards") of folders of many
 * shapes, each ingested by `service ingest` without a template: every component of every tab
 * answers `POST /dashboards/{id}/data` without an error and with data, on SQLite and PostgreSQL.
 */

// A hang guard, not a speed check: each case runs the CLI (a fresh Node process) against the server.
vi.setConfig({ testTimeout: 240_000 });

const KEY = 'provisioning-key-for-the-generic-dashboard-0123456789';
const FIXTURES = new URL('../../server/test/fixtures/multiqc/', import.meta.url).pathname;

/** Numbers from a fixed seed, so each run makes the same files. */
function numbers(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const csv = (header: string[], rows: (string | number)[][]) =>
  `${[header, ...rows].map((row) => row.join(',')).join('\n')}\n`;

const SITES = ['north', 'south', 'east', 'west'];
const sample = (n: number) => `S${String(n).padStart(2, '0')}`;

/** Each shape: its files (path → content). */
async function shapes(): Promise<Record<string, Record<string, string | Buffer>>> {
  const random = numbers(7);
  const wide = Array.from({ length: 80 }, () => {
    const base = random() * 100;
    return [base, 2 * base + random(), ...Array.from({ length: 10 }, () => Math.round(random() * 1000) / 10)];
  });
  const png = (color: string) =>
    sharp({ create: { width: 40, height: 30, channels: 3, background: color } })
      .png()
      .toBuffer();
  return {
    only_ids: {
      'ids.csv': csv(
        ['sample_id', 'run_accession'],
        Array.from({ length: 40 }, (_, n) => [sample(n), `ERR${1000 + n}`]),
      ),
    },
    only_text: {
      'notes.csv': csv(
        ['comment', 'status', 'author'],
        Array.from({ length: 60 }, (_, n) => [
          `note number ${n}`,
          ['open', 'closed', 'waiting'][n % 3] as string,
          `author${n % 4}`,
        ]),
      ),
    },
    wide_numeric: {
      'measures.csv': csv(['a', 'b', ...Array.from({ length: 10 }, (_, n) => `m${n}`)], wide),
    },
    long_dates: {
      'readings.csv': csv(
        ['day', 'site', 'value'],
        Array.from({ length: 360 }, (_, n) => [
          new Date(Date.UTC(2026, 0, 1 + (n % 90))).toISOString().slice(0, 10),
          SITES[n % 4] as string,
          Math.round(random() * 500) / 10,
        ]),
      ),
    },
    coordinates: {
      'sites.csv': csv(
        ['site', 'latitude', 'longitude', 'country', 'habitat', 'visitors'],
        Array.from({ length: 40 }, (_, n) => [
          `site${n}`,
          Math.round((40 + random() * 15) * 1000) / 1000,
          Math.round((-5 + random() * 20) * 1000) / 1000,
          ['FRA', 'DEU', 'ESP', 'ITA'][n % 4] as string,
          ['forest', 'lake'][n % 2] as string,
          Math.round(random() * 900),
        ]),
      ),
    },
    images: Object.fromEntries(
      await Promise.all(
        ['#336699', '#993366', '#669933', '#aa8800', '#008888', '#444444'].map(
          async (color, n) => [`plots/${sample(n + 1)}.png`, await png(color)] as const,
        ),
      ),
    ),
    shared_samples: {
      'samples.csv': csv(
        ['sample', 'habitat', 'depth'],
        Array.from({ length: 20 }, (_, n) => [sample(n), ['soil', 'water', 'sediment'][n % 3] as string, 5 + n]),
      ),
      'counts.csv': csv(
        ['sample', 'gene', 'count'],
        Array.from({ length: 200 }, (_, n) => [
          sample(n % 20),
          `gene${Math.floor(n / 20)}`,
          Math.round(random() * 1000),
        ]),
      ),
    },
    many: Object.fromEntries(
      ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name, n) => [
        `${name}.csv`,
        csv(
          ['group', `${name}_value`, `${name}_score`],
          Array.from({ length: 30 }, (_, m) => [
            SITES[(m % (n + 2)) % 4] as string,
            m * (n + 1),
            Math.round(random() * 100),
          ]),
        ),
      ]),
    ),
  };
}

/** The MultiQC shape: a project.yaml (so no template is detected) with the report and its sample sheet. */
async function multiqcFolder(dir: string) {
  await mkdir(join(dir, 'multiqc_data'), { recursive: true });
  await copyFile(join(FIXTURES, 'ampliseq-2.16.0-multiqc.parquet'), join(dir, 'multiqc_data', 'multiqc.parquet'));
  await copyFile(join(FIXTURES, 'ampliseq-2.16.0-metadata.tsv'), join(dir, 'metadata.tsv'));
  await writeFile(
    join(dir, 'project.yaml'),
    `name: multiqc report
workflows:
  - name: qc
    data_collections:
      - { tag: multiqc, type: multiqc, pattern: "multiqc_data/multiqc\\\\.parquet", format: parquet }
      - { tag: metadata, pattern: "metadata\\\\.tsv", format: tsv }
`,
  );
}

interface Dashboard {
  project_id: string;
  tabs: { tab_id: string }[];
  components: { component_id: string; type: string; tab_id?: string; agg?: string; comparison?: unknown }[];
}
type Data = Record<string, unknown> & { error?: unknown };

const parent = await mkdtemp(join(tmpdir(), 'service-generic-'));
afterAll(() => rm(parent, { recursive: true, force: true }));

/** Runs `service ingest` on the folder; answers the user's token and the dashboard it links to. */
async function ingest(
  server: TestServer,
  dir: string,
): Promise<{ token: string; dashboardId: string; stderr: string }> {
  const result = await runCli(['ingest', dir, '--user', 'ada@example.org', '--server', server.url], {
    SERVICE_AUTH_PROVISIONING_API_KEY: KEY,
  });
  expect(result.code, result.stderr).toBe(0);
  const fragment = new URLSearchParams(new URL(result.stdout.trim()).hash.slice(1));
  const next = fragment.get('next') ?? '';
  expect(next, result.stderr).toMatch(/^\/dashboards\//);
  const session = await call<Session>(server, 'POST', '/auth/magic_link/redeem', {
    json: { ticket: fragment.get('ticket') },
  });
  return { token: session.body.access_token, dashboardId: next.split('/').pop() as string, stderr: result.stderr };
}

/** Whether a component's answer holds something to draw. */
function hasData(type: string, data: Data): boolean {
  const rows = (key: string) => Array.isArray(data[key]) && (data[key] as unknown[]).length > 0;
  switch (type) {
    case 'card':
      return data.value !== null && data.value !== undefined;
    case 'interactive':
      return rows('options') || (data.min !== null && data.min !== undefined);
    case 'multiqc':
      return rows('samples');
    default:
      return rows('rows');
  }
}

/** Asks for every tab's data and checks each component's answer; answers the answers. */
async function everyComponentAnswers(server: TestServer, token: string, dashboardId: string) {
  const dashboard = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token });
  expect(dashboard.status, dashboard.text).toBe(200);
  const answers = new Map<string, Data>();
  const tabs = dashboard.body.tabs.length === 0 ? [undefined] : dashboard.body.tabs.map((tab) => tab.tab_id);
  for (const tab_id of tabs) {
    const answer = await call<{ components: Record<string, Data> }>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token,
      json: tab_id === undefined ? {} : { tab_id },
    });
    expect(answer.status, answer.text).toBe(200);
    for (const [id, data] of Object.entries(answer.body.components)) answers.set(id, data);
  }
  for (const component of dashboard.body.components) {
    if (component.type === 'text' || component.type === 'section') continue;
    const data = answers.get(component.component_id);
    expect(data, component.component_id).toBeDefined();
    expect(data?.error, `${component.component_id}: ${JSON.stringify(data?.error)}`).toBeUndefined();
    expect(hasData(component.type, data as Data), `${component.component_id} has no data`).toBe(true);
  }
  return { dashboard: dashboard.body, answers };
}

describeEachDialect('the generic overview of folders of many shapes', (dialect: Dialect) => {
  let server: TestServer;
  let folders: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
    folders = {};
    for (const [shape, files] of Object.entries(await shapes())) {
      const dir = join(parent, dialect, shape);
      for (const [path, content] of Object.entries(files)) {
        await mkdir(join(dir, path, '..'), { recursive: true });
        await writeFile(join(dir, path), content);
      }
      folders[shape] = dir;
    }
    folders.multiqc = join(parent, dialect, 'multiqc');
    await multiqcFolder(folders.multiqc);
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  it.each(['only_ids', 'only_text', 'wide_numeric', 'coordinates', 'images', 'multiqc'])(
    'every component of the overview of %s answers data',
    async (shape) => {
      const { token, dashboardId } = await ingest(server, folders[shape] as string);
      const { dashboard } = await everyComponentAnswers(server, token, dashboardId);
      const types = dashboard.components.map((component) => component.type);
      const expected: Record<string, string> = {
        only_ids: 'table',
        only_text: 'figure',
        wide_numeric: 'figure',
        coordinates: 'figure',
        images: 'image',
        multiqc: 'multiqc',
      };
      expect(types).toContain(expected[shape]);
    },
  );

  it('a folder with dates gets a time series, and cards compared with the previous version once it has one', async () => {
    const dir = folders.long_dates as string;
    const first = await ingest(server, dir);
    await everyComponentAnswers(server, first.token, first.dashboardId);
    await writeFile(join(dir, 'readings_more.csv'), csv(['day', 'site', 'value'], [['2026-04-01', 'north', 12.5]]));
    const second = await ingest(server, dir);
    expect(second.dashboardId).toBe(first.dashboardId);
    const { dashboard, answers } = await everyComponentAnswers(server, second.token, second.dashboardId);
    const cards = dashboard.components.filter((component) => component.type === 'card');
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) {
      expect(card.comparison).toEqual({ against: 'previous_version' });
      const comparison = answers.get(card.component_id)?.comparison as { reference: unknown } | undefined;
      expect(comparison?.reference, card.component_id).not.toBeNull();
    }
  });

  it('two collections sharing a sample column are joined, and the key filter crosses them', async () => {
    const { token, dashboardId } = await ingest(server, folders.shared_samples as string);
    const { dashboard } = await everyComponentAnswers(server, token, dashboardId);
    const joins = await call<{ items: { on: string[] }[] }>(server, 'GET', `/projects/${dashboard.project_id}/joins`, {
      token,
    });
    expect(joins.body.items.map((join) => join.on)).toEqual([['sample']]);
    const key = dashboard.components.find((component) => component.component_id === 'key-1');
    expect(key).toMatchObject({ type: 'interactive' });
    const filtered = await call<{ components: Record<string, Data> }>(
      server,
      'POST',
      `/dashboards/${dashboardId}/data`,
      {
        token,
        json: { filters: [{ component_id: 'key-1', value: ['S01'] }] },
      },
    );
    expect(filtered.status, filtered.text).toBe(200);
    // Every collection's row count narrows to S01's rows: 1 sample, 10 counts.
    const rowCards = dashboard.components.filter((component) => component.component_id.endsWith('-rows'));
    const values = rowCards.map((card) => filtered.body.components[card.component_id]?.value).sort();
    expect(values).toEqual([1, 10]);
  });

  it('many collections get a tab each after an overview tab', async () => {
    const { token, dashboardId } = await ingest(server, folders.many as string);
    const { dashboard } = await everyComponentAnswers(server, token, dashboardId);
    expect(dashboard.tabs.map((tab) => tab.tab_id)).toEqual(['overview', 't1', 't2', 't3', 't4', 't5']);
  });
});
