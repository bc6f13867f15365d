import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, type Session, startTestServer } from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

const KEY = 'provisioning-key-for-the-cli-test-0123456789';

async function resultsFolder(withDefinition: boolean): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'service-ingest-')), 'penguin_study');
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
        expect(fragment.get('next')).toMatch(/^\/projects\/[0-9a-f-]{36}$/);
        expect(result.stderr).toContain('Ingestion ended: success');

        const session = await call<Session>(server, 'POST', '/auth/magic_link/redeem', {
          json: { ticket: fragment.get('ticket') },
        });
        expect(session.body.user.email).toBe('ada@example.org');
        const projectId = (fragment.get('next') as string).split('/').pop() as string;
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

        // A second run skips what is already uploaded and still prints a link.
        const again = await runCli(['ingest', dir, '--user', 'ada@example.org', '--server', server.url], {
          SERVICE_AUTH_PROVISIONING_API_KEY: KEY,
        });
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('already uploaded');
      } finally {
        await server.stop();
        await server.database.drop();
      }
    },
  );
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
