import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { ADMIN, call, login, startTestServer } from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

// A hang guard, not a speed check: these cases start Node processes that each load the server and
// DuckDB, which on a loaded two-core machine has taken more than the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

it('service project validate checks a file offline and points at each error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'service-cli-project-'));
  const good = join(dir, 'good.yaml');
  const bad = join(dir, 'bad.yaml');
  await writeFile(
    good,
    'name: penguins\nworkflows:\n  - name: wf\n    data_collections:\n      - { tag: t, pattern: "t\\\\.csv", format: csv }\n',
  );
  await writeFile(
    bad,
    'name: penguins\nworkflows:\n  - name: wf\n    data_collections:\n      - tag: t\n        pattern: "(open"\n        format: xls\n',
  );

  const ok = await runCli(['project', 'validate', good]);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toBe(`${good}: valid project "penguins"\n`);

  const refused = await runCli(['project', 'validate', bad]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`${bad}:7:17 workflows[0].data_collections[0].format:`);
});

it('service project import sends the file to a server and reports what happened', async () => {
  const server = await startTestServer('sqlite');
  try {
    const { access_token } = await login(server, ADMIN.email, ADMIN.password);
    const dir = await mkdtemp(join(tmpdir(), 'service-cli-import-'));
    const file = join(dir, 'project.yaml');
    await writeFile(file, 'name: imported\ndescription: from the CLI\n');
    const first = await runCli(['project', 'import', file, '--server', server.url, '--token', access_token]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^project [0-9a-f-]{36} created\n$/);
    const again = await runCli(['project', 'import', file], {
      SERVICE_PUBLIC_URL: server.url,
      SERVICE_TOKEN: access_token,
    });
    expect(again.stdout).toMatch(/unchanged\n$/);
    const denied = await runCli(['project', 'import', file, '--server', server.url, '--token', 'bad']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('import refused (401)');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});

it('service commands take a personal access token from SERVICE_TOKEN, within its scope', async () => {
  const server = await startTestServer('sqlite');
  try {
    const { access_token } = await login(server, ADMIN.email, ADMIN.password);
    const mint = async (scope: 'read' | 'write') => {
      const answer = await call<{ token: string }>(server, 'POST', '/auth/tokens', {
        token: access_token,
        json: { name: `cli ${scope}`, scope },
      });
      return answer.body.token;
    };
    const dir = await mkdtemp(join(tmpdir(), 'service-cli-pat-'));
    const file = join(dir, 'project.yaml');
    await writeFile(file, 'name: by-token\n');
    const env = { SERVICE_PUBLIC_URL: server.url };
    const written = await runCli(['project', 'import', file], { ...env, SERVICE_TOKEN: await mint('write') });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toMatch(/^project [0-9a-f-]{36} created\n$/);
    await writeFile(file, 'name: read-only\n');
    const refused = await runCli(['project', 'import', file], { ...env, SERVICE_TOKEN: await mint('read') });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('import refused (403)');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});
