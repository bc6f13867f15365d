import { expect, it } from 'vitest';
import { ADMIN, call, createUser, login, startTestServer } from '../../../test/support/test-server.js';
import { seedExampleData } from '../../src/examples/seed.js';

it('loads the example project once, public, with its tables built', async () => {
  const server = await startTestServer('sqlite');
  try {
    expect(await seedExampleData(server.context)).toBe('created');
    expect(await seedExampleData(server.context)).toBe('exists');
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const visitor = await createUser(server, admin.access_token, 'visitor@example.org');
    const projects = await call<{ items: { project_id: string; name: string; is_public: boolean }[] }>(
      server,
      'GET',
      '/projects',
      {
        token: visitor.access_token,
      },
    );
    const example = projects.body.items.find((project) => project.name === 'Example: Palmer penguins');
    expect(example?.is_public).toBe(true);
    const workflows = await call<{ items: { workflow_id: string }[] }>(
      server,
      'GET',
      `/projects/${example?.project_id}/workflows`,
      {
        token: visitor.access_token,
      },
    );
    const collections = await call<{ items: { data_collection_id: string; tag: string }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
      { token: visitor.access_token },
    );
    const measurements = collections.body.items.find((collection) => collection.tag === 'measurements');
    const preview = await call<{ total: number }>(
      server,
      'GET',
      `/datacollections/${measurements?.data_collection_id}/preview?limit=5`,
      {
        token: visitor.access_token,
      },
    );
    expect(preview.body.total).toBe(195);
  } finally {
    await server.stop();
    await server.database.drop();
  }
});
