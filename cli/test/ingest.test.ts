import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { call, type Session, startTestServer } from '../../test/support/test-server.js';
import { CLI, runCli } from './run-cli.js';

// A hang guard, not a speed check: these cases start Node processes that each load the server and
// DuckDB, which on a loaded two-core machine has taken more than the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

const KEY = 'provisioning-key-for-the-cli-test-0123456789';

interface OverviewDashboard {
  project_id: string;
  title: string;
  components: {
    component_id: string;
    type: string;
    data_collection_id?: string;
    markdown?: string;
    chart?: string;
    x?: string;
  }[];
  layout: { component_id: string }[];
}

const temporaryFolders: string[] = [];
afterAll(async () => {
  for (const folder of temporaryFolders) await rm(folder, { recursive: true, force: true });
});

async function resultsFolder(withDefinition: boolean): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'service-ingest-'));
  temporaryFolders.push(parent);
  const dir = join(parent, 'penguin_study');
  await mkdir(join(dir, 'run_1', 'Biscoe'), { recursive: true });
  await mkdir(join(dir, 'run_2', 'Dream'), { recursive: true });
  await writeFile(join(dir, 'run_1', 'Biscoe', 'measures.csv'), 'sample,mass\nA1,3750\nA2,3800\n');
  await writeFile(join(dir, 'run_2', 'Dream', 'measures.csv'), 'sample,mass\nB1,3300\n');
  await writeFile(join(dir, 'run_1', 'notes.tsv'), 'k\tv\na\t1\n');
  if (withDefinition) {
    await writeFile(
      join(dir, 'project.yaml'),
      `name: penguin study
workflows:
  - name: measure
    data_location: { structure: runs, locations: [ /nowhere/at/all ], runs_regex: "^run_\\\\d+$" }
    data_collections:
      - { tag: measurements, pattern: "(?<island>[^/]+)/measures\\\\.csv", format: csv }
`,
    );
  }
  return dir;
}

describe.each([
  ['with jobs', {}],
  ['without jobs', { SERVICE_JOBS_ENABLED: 'false' }],
])('service ingest (%s)', (_label, env) => {
  it.each([
    ['an inferred project', false],
    ['its project.yaml', true],
  ])(
    'uploads a results folder as %s, ingests it as the user, and prints only a working magic link',
    async (_what, withDefinition) => {
      const server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY, ...env });
      try {
        const dir = await resultsFolder(withDefinition);
        const result = await runCli([
          'ingest',
          dir,
          '--user',
          'ada@example.org',
          '--server',
          server.url,
          '--provisioning-key',
          KEY,
        ]);
        expect(result.code, result.stderr).toBe(0);
        const lines = result.stdout.trim().split('\n');
        expect(lines).toHaveLength(1);
        const link = new URL(lines[0] as string);
        expect(link.pathname).toBe('/auth/magic');
        const fragment = new URLSearchParams(link.hash.slice(1));
        expect(fragment.get('next')).toMatch(/^\/dashboards\/[0-9a-f-]{36}$/);
        expect(result.stderr).toContain('Ingestion ended: success');
        expect(result.stderr).toMatch(/Dashboard [0-9a-f-]{36} created/);
        // Not a terminal: plain lines only, no bar redrawn with carriage returns or escapes.
        expect(result.stderr).toMatch(/^\[1\/\d+\] .+ uploaded$/m);
        expect(result.stderr).not.toContain('\r');
        expect(result.stderr).not.toContain('\x1b');

        const session = await call<Session>(server, 'POST', '/auth/magic_link/redeem', {
          json: { ticket: fragment.get('ticket') },
        });
        expect(session.body.user.email).toBe('ada@example.org');
        const dashboardId = (fragment.get('next') as string).split('/').pop() as string;
        const dashboard = await call<OverviewDashboard>(server, 'GET', `/dashboards/${dashboardId}`, {
          token: session.body.access_token,
        });
        expect(dashboard.status, dashboard.text).toBe(200);
        const projectId = dashboard.body.project_id;
        const runs = await call<{ items: { trigger: string; status: string }[] }>(
          server,
          'GET',
          `/projects/ingestion-runs/${projectId}`,
          {
            token: session.body.access_token,
          },
        );
        expect(runs.body.items[0]).toMatchObject({ trigger: 'cli', status: 'success' });
        const workflows = await call<{ items: { workflow_id: string; name: string; data_location: unknown }[] }>(
          server,
          'GET',
          `/projects/${projectId}/workflows`,
          { token: session.body.access_token },
        );
        expect(workflows.body.items[0]?.data_location).toBeNull();
        const collections = await call<{ items: { data_collection_id: string; tag: string }[] }>(
          server,
          'GET',
          `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
          { token: session.body.access_token },
        );
        const measures = collections.body.items.find((c) => c.tag === (withDefinition ? 'measurements' : 'measures'));
        const preview = await call<{ total: number }>(
          server,
          'GET',
          `/datacollections/${measures?.data_collection_id}/preview`,
          {
            token: session.body.access_token,
          },
        );
        expect(preview.body.total).toBe(3);
        if (!withDefinition) expect(collections.body.items.map((c) => c.tag).sort()).toEqual(['measures', 'notes']);

        // The overview: the project's name in a text component, then per collection a section, a
        // row-count card, charts of its columns and a table.
        const project = await call<{ name: string }>(server, 'GET', `/projects/${projectId}`, {
          token: session.body.access_token,
        });
        expect(dashboard.body).toMatchObject({ title: `${project.body.name} — overview`, my_role: 'owner' });
        const [text, ...rest] = dashboard.body.components;
        expect(text).toMatchObject({ type: 'text', markdown: expect.stringContaining(`# ${project.body.name}`) });
        const ofType = (type: string) => rest.filter((component) => component.type === type);
        const collectionIds = collections.body.items.map((c) => c.data_collection_id).sort();
        expect(
          ofType('table')
            .map((table) => table.data_collection_id)
            .sort(),
        ).toEqual(collectionIds);
        // A row count per collection (and cards of its measures beside it).
        expect(
          ofType('card')
            .filter((card) => card.component_id.endsWith('-rows'))
            .map((card) => card.data_collection_id)
            .sort(),
        ).toEqual(collectionIds);
        expect(ofType('figure')).toContainEqual(
          expect.objectContaining({ chart: 'histogram', x: 'mass', data_collection_id: measures?.data_collection_id }),
        );
        expect(dashboard.body.layout.map((item) => item.component_id)).toEqual(
          dashboard.body.components.map((component) => component.component_id),
        );
        const tables = ofType('table');
        const measuresTable = tables.find((table) => table.data_collection_id === measures?.data_collection_id);
        const rows = await call<{ total: number }>(
          server,
          'GET',
          `/dashboards/${dashboardId}/components/${measuresTable?.component_id}/rows`,
          { token: session.body.access_token },
        );
        expect(rows.body.total).toBe(3);

        // A second run skips what is already uploaded and still prints a link.
        const again = await runCli(['ingest', dir, '--user', 'ada@example.org', '--server', server.url], {
          SERVICE_AUTH_PROVISIONING_API_KEY: KEY,
        });
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('already uploaded');
        // …and regenerates the same dashboard instead of adding one.
        const againNext = new URLSearchParams(new URL(again.stdout.trim()).hash.slice(1)).get('next');
        expect(againNext).toBe(`/dashboards/${dashboardId}`);
        expect(again.stderr).toContain(`Dashboard ${dashboardId} updated`);
        const dashboards = await call<{ total: number }>(server, 'GET', `/dashboards?project_id=${projectId}`, {
          token: session.body.access_token,
        });
        expect(dashboards.body.total).toBe(1);
      } finally {
        await server.stop();
        await server.database.drop();
      }
    },
    // Two whole CLI runs (each a fresh Node process) against a server started for the test.
    90_000,
  );
});

it("service ingest links to the folder's dashboard.yaml, regenerates it on a second run, and points at a bad file's line", async () => {
  const server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
  try {
    const dir = await resultsFolder(true);
    const file = `title: Masses
components:
  - { component_id: mass, type: figure, chart: histogram, data_collection_id: measurements, x: mass }
  - { component_id: rows, type: table, data_collection_id: measurements, columns: [sample, island, mass] }
layout:
  - { component_id: mass, x: 0, y: 0, w: 6, h: 5 }
  - { component_id: rows, x: 6, y: 0, w: 6, h: 5 }
`;
    await writeFile(join(dir, 'dashboard.yaml'), file);
    const ingest = () =>
      runCli(['ingest', dir, '--user', 'ada@example.org', '--server', server.url], {
        SERVICE_AUTH_PROVISIONING_API_KEY: KEY,
      });
    const first = await ingest();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('dashboard.yaml uploaded');
    const fragment = new URLSearchParams(new URL(first.stdout.trim()).hash.slice(1));
    const session = await call<Session>(server, 'POST', '/auth/magic_link/redeem', {
      json: { ticket: fragment.get('ticket') },
    });
    const dashboardPath = fragment.get('next') as string;
    const dashboard = await call<OverviewDashboard>(server, 'GET', dashboardPath, { token: session.body.access_token });
    expect(dashboard.status, dashboard.text).toBe(200);
    expect(dashboard.body.title).toBe('Masses');
    expect(dashboard.body.components.map((component) => component.component_id)).toEqual(['mass', 'rows']);

    await writeFile(join(dir, 'dashboard.yaml'), file.replace('x: mass }', 'x: mass, bins: 5 }'));
    const second = await ingest();
    expect(second.code, second.stderr).toBe(0);
    expect(new URLSearchParams(new URL(second.stdout.trim()).hash.slice(1)).get('next')).toBe(dashboardPath);
    const listed = await call<{ total: number; items: { components: { bins?: number }[] }[] }>(
      server,
      'GET',
      `/dashboards?project_id=${dashboard.body.project_id}`,
      { token: session.body.access_token },
    );
    expect(listed.body.total).toBe(1);
    expect(listed.body.items[0]?.components[0]?.bins).toBe(5);

    await writeFile(join(dir, 'dashboard.yaml'), file.replace('columns: [sample', 'colums: [sample'));
    // Issue 24: the data is in, so the dashboard's failure still ends with a link, to the project.
    await writeFile(join(dir, 'run_2', 'Dream', 'measures.csv'), 'sample,mass\nB1,3300\nB2,3350\n');
    const refused = await ingest();
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain('the dashboard could not be made');
    expect(refused.stderr).toContain('dashboard.yaml:4:');
    expect(refused.stderr).toContain('components[1].colums: unknown field');
    const projectLink = new URLSearchParams(new URL(refused.stdout.trim()).hash.slice(1));
    expect(projectLink.get('next')).toBe(`/projects/${dashboard.body.project_id}`);
    const kept = await call<{ total: number; items: { components: { bins?: number }[] }[] }>(
      server,
      'GET',
      `/dashboards?project_id=${dashboard.body.project_id}`,
      { token: session.body.access_token },
    );
    expect(kept.body.items.map((item) => item.components[0]?.bins)).toEqual([5]);
    const collection = dashboard.body.components[0]?.data_collection_id ?? '';
    const rows = await call<{ rows: unknown[] }>(server, 'GET', `/datacollections/${collection}/preview`, {
      token: session.body.access_token,
    });
    expect(rows.body.rows).toHaveLength(4); // the new row of this run is in
  } finally {
    await server.stop();
    await server.database.drop();
  }
});

it('service ingest refuses a wrong key without uploading anything', async () => {
  const server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
  try {
    const dir = await resultsFolder(false);
    const result = await runCli([
      'ingest',
      dir,
      '--user',
      'ada@example.org',
      '--server',
      server.url,
      '--provisioning-key',
      'wrong',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('401');
    expect(await server.context.database.db.selectFrom('projects').select('id').execute()).toEqual([]);
  } finally {
    await server.stop();
    await server.database.drop();
  }
});

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

it('service ingest draws progress bars when standard error is a terminal, and still prints only the link', async () => {
  const server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
  try {
    const dir = await resultsFolder(true);
    const big = Array.from({ length: 200_000 }, (_, i) => `Z${i},${3000 + (i % 900)}`).join('\n');
    await writeFile(join(dir, 'run_1', 'Biscoe', 'measures.csv'), `sample,mass\n${big}\n`);
    const linkFile = join(dir, '..', 'link.txt');
    // script(1) runs the command on a pseudo-terminal: standard error is a TTY, standard output a file.
    const command = [process.execPath, CLI, 'ingest', dir, '--user', 'ada@example.org', '--server', server.url]
      .map(shellQuote)
      .join(' ');
    const terminal = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('script', ['-qec', `${command} > ${shellQuote(linkFile)}`, '/dev/null'], {
        env: { PATH: process.env.PATH, SERVICE_AUTH_PROVISIONING_API_KEY: KEY, TERM: 'xterm' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
    expect(terminal.code, terminal.output).toBe(0);
    // The bar is redrawn in place (carriage return, erase line) and reaches the end of the upload.
    expect(terminal.output).toContain('\r\x1b[2K');
    expect(terminal.output).toMatch(/Uploading \[#+\] 100% [\d.]+\/[\d.]+ MiB/);
    expect(terminal.output).toMatch(/Uploading \[#*-+\]/);
    expect(terminal.output).toContain('Ingestion ended: success');
    const link = await readFile(linkFile, 'utf8');
    expect(link.split('\n')).toHaveLength(2);
    expect(new URL(link.trim()).pathname).toBe('/auth/magic');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});
