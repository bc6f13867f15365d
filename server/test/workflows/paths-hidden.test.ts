import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

/**
 * Absolute server paths (workflow data locations, run folders) are shown only to those who may
 * edit the project: its viewers, other signed-in users and anonymous visitors of a public project
 * see how the data is laid out, not where it lives.
 */
describeEachDialect('server paths and who sees them', (dialect) => {
  let server: TestServer;
  let people: Record<'ada' | 'eddie' | 'vera' | 'stranger', Session>;
  let location: string;
  let projectId: string;
  let workflowId: string;
  let runId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const session = async (email: string) =>
      server.context.sessions.start(
        await server.context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' }),
      );
    people = {
      ada: await session('ada@example.org'),
      eddie: await session('eddie@example.org'),
      vera: await session('vera@example.org'),
      stranger: await session('stranger@example.org'),
    };
    location = join(server.database.dataDir, 'imports', 'penguins-secret-folder');
    const imported = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
      token: people.ada.access_token,
      json: {
        yaml: [
          'name: penguins',
          'is_public: true',
          'workflows:',
          '  - name: measure',
          '    data_location:',
          '      structure: runs',
          `      locations: [ ${JSON.stringify(location)} ]`,
          '      runs_regex: "^run_\\\\d+$"',
          '    data_collections:',
          '      - tag: measurements',
          '        pattern: "measures\\\\.csv"',
          '        format: csv',
          '',
        ].join('\n'),
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    projectId = imported.body.project_id;
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: people.ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['eddie@example.org'],
        viewers: ['vera@example.org'],
        is_public: true,
      },
    });
    expect(shared.status, shared.text).toBe(200);
    const workflows = await call<{ items: { workflow_id: string }[] }>(
      server,
      'GET',
      `/projects/${projectId}/workflows`,
      {
        token: people.ada.access_token,
      },
    );
    workflowId = workflows.body.items[0]?.workflow_id ?? '';
    // A run as ingestion registers one: its folder under the location.
    const run = await server.context.database.db
      .insertInto('runs')
      .values({
        id: crypto.randomUUID(),
        workflow_id: workflowId,
        tag: 'run_1',
        location: join(location, 'run_1'),
        status: 'registered',
        run_configuration_id: null,
        started_at: null,
        finished_at: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    runId = run.id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const readings = () => [
    `/projects/${projectId}/workflows`,
    `/workflows/${workflowId}`,
    `/workflows/${workflowId}/runs`,
    `/runs/${runId}`,
    `/projects/${projectId}/yaml`,
  ];

  it('shows them to those who may edit the project', async () => {
    for (const who of ['ada', 'eddie'] as const) {
      for (const path of readings()) {
        const answer = await call(server, 'GET', path, { token: people[who].access_token });
        expect(answer.status, `${who} ${path}`).toBe(200);
        expect(answer.text, `${who} ${path}`).toContain('penguins-secret-folder');
      }
    }
  });

  it("hides them from the project's viewers, other users and anonymous visitors, keeping the rest", async () => {
    for (const who of ['vera', 'stranger', 'anonymous'] as const) {
      const token = who === 'anonymous' ? undefined : people[who].access_token;
      for (const path of readings()) {
        const answer = await call(server, 'GET', path, token ? { token } : {});
        expect(answer.status, `${who} ${path}`).toBe(200);
        expect(answer.text, `${who} ${path}`).not.toContain('penguins-secret-folder');
        expect(answer.text, `${who} ${path}`).not.toContain(server.database.dataDir);
      }
      const workflow = await call<{ data_location: Record<string, unknown> }>(
        server,
        'GET',
        `/workflows/${workflowId}`,
        token ? { token } : {},
      );
      expect(workflow.body.data_location).toEqual({ structure: 'runs', runs_regex: '^run_\\d+$' });
      const run = await call<Record<string, unknown>>(server, 'GET', `/runs/${runId}`, token ? { token } : {});
      expect(run.body).toMatchObject({ tag: 'run_1', status: 'registered' });
      expect(run.body).not.toHaveProperty('location');
    }
  });
});
