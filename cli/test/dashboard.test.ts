import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { ADMIN, call, createProjectWithUpload, login, startTestServer } from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

// A hang guard, not a speed check: each case starts Node processes that load the server and DuckDB.
vi.setConfig({ testTimeout: 120_000 });

it('service dashboard export and import round-trip a dashboard through a file', async () => {
  const server = await startTestServer('sqlite');
  try {
    const { access_token } = await login(server, ADMIN.email, ADMIN.password);
    const project = await createProjectWithUpload(server, access_token, 'cli dashboards');
    const created = await call<{ dashboard_id: string; components: unknown[]; layout: unknown[] }>(
      server,
      'POST',
      '/dashboards',
      {
        token: access_token,
        json: {
          project_id: project.projectId,
          title: 'From the CLI',
          components: [
            { component_id: 'intro', type: 'text', markdown: 'hello' },
            { component_id: 'rows', type: 'table', data_collection_id: project.collectionId, columns: ['a'] },
          ],
          layout: [{ component_id: 'intro', x: 0, y: 0, w: 12, h: 2 }],
        },
      },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    const connection = ['--server', server.url, '--token', access_token];

    const printed = await runCli(['dashboard', 'export', id, ...connection]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('title: From the CLI\n');
    expect(printed.stdout).toContain('data_collection_id: t\n');

    const dir = await mkdtemp(join(tmpdir(), 'service-cli-dashboard-'));
    const file = join(dir, 'dashboard.yaml');
    const written = await runCli(['dashboard', 'export', id, '--out', file], {
      SERVICE_PUBLIC_URL: server.url,
      SERVICE_TOKEN: access_token,
    });
    expect(written.code, written.stderr).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(printed.stdout);

    const imported = await runCli(['dashboard', 'import', file, '--project', project.projectId, ...connection]);
    expect(imported.code, imported.stderr).toBe(0);
    const match = /^dashboard ([0-9a-f-]{36}) created in project ([0-9a-f-]{36})\n$/.exec(imported.stdout);
    expect(match?.[2]).toBe(project.projectId);
    const copy = await call<{ components: unknown[]; layout: unknown[] }>(server, 'GET', `/dashboards/${match?.[1]}`, {
      token: access_token,
    });
    expect(copy.body.components).toEqual(created.body.components);
    expect(copy.body.layout).toEqual(created.body.layout);

    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'title: Broken\ncomponents:\n  - component_id: x\n    type: text\n    markdwn: oops\n');
    const refused = await runCli(['dashboard', 'import', bad, '--project', project.projectId, ...connection]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('import refused (400)');
    expect(refused.stderr).toContain(`${bad}:5:14 components[0].markdwn: unknown field`);

    const missing = await runCli(['dashboard', 'export', 'nope', ...connection]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('export refused (404)');
    const noToken = await runCli(['dashboard', 'export', id, '--server', server.url]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('SERVICE_TOKEN');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});
