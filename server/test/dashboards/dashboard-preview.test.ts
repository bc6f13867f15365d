import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, DIALECTS, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/**
 * `POST /dashboards/{id}/data` with `preview`: the editor's unsaved components computed as if they
 * were saved, for those who may edit the dashboard only, never showing more of the project than
 * the save rule allows (docs/architecture.md "Dashboards").
 */
for (const dialect of DIALECTS) {
  describe(`dashboard data previews [${dialect}]`, () => {
    let server: TestServer;
    const tokens: Record<string, string> = {};
    let dashboardId: string;
    let collectionId: string;
    let foreignCollectionId: string;

    beforeAll(async () => {
      const people = await serverWithPeople(dialect);
      server = people.server;
      for (const name of ['owner', 'editor', 'viewer']) {
        tokens[name] = (await people.session(`${name}@example.org`)).access_token;
      }
      const owner = tokens.owner ?? '';
      const project = await projectWithTable(server, owner, 'Penguins');
      collectionId = project.collectionId;
      foreignCollectionId = (await projectWithTable(server, owner, 'Other')).collectionId;
      const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token: owner,
        json: {
          project_id: project.projectId,
          title: 'Counts',
          components: [{ component_id: 'count', type: 'card', data_collection_id: collectionId, agg: 'count' }],
        },
      });
      expect(created.status, created.text).toBe(201);
      dashboardId = created.body.dashboard_id;
      // editor@ edits the dashboard alone: the project itself is not theirs to read.
      const shared = await call(server, 'PUT', `/dashboards/${dashboardId}/permissions`, {
        token: owner,
        json: {
          owners: ['owner@example.org'],
          editors: ['editor@example.org'],
          viewers: ['viewer@example.org'],
          is_public: false,
        },
      });
      expect(shared.status, shared.text).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    const data = (token: string | undefined, body: unknown) =>
      call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
        ...(token === undefined ? {} : { token }),
        json: body,
      });

    it('computes a new component, and one standing in for a saved one, only those previewed', async () => {
      const answer = await data(tokens.owner, {
        preview: [
          { component_id: 'bars', type: 'figure', data_collection_id: collectionId, chart: 'bar', x: 'species' },
          { component_id: 'count', type: 'card', data_collection_id: collectionId, agg: 'mean', column: 'mass' },
        ],
      });
      expect(answer.status, answer.text).toBe(200);
      expect(Object.keys(answer.body.components).sort()).toEqual(['bars', 'count']);
      const bars = rowsOf(answer.body.components.bars ?? {});
      expect(bars.map((row) => [row.x, row.y])).toEqual([
        ['Adelie', 60],
        ['Gentoo', 40],
        ['Chinstrap', 20],
      ]);
      // mean of 3000 + 10·i for i = 0…119
      expect(answer.body.components.count).toMatchObject({ value: 3595 });
      // Nothing was saved: the dashboard still counts.
      const saved = await data(tokens.owner, {});
      expect(saved.body.components.count).toMatchObject({ value: 120 });
    });

    it('answers a collection of another project as unknown, in its slot', async () => {
      const answer = await data(tokens.owner, {
        preview: [{ component_id: 'elsewhere', type: 'card', data_collection_id: foreignCollectionId, agg: 'count' }],
      });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.components.elsewhere).toMatchObject({ error: { code: 'unknown_collection' } });
    });

    it('refuses readers who may not edit, and editors previewing more than the dashboard shows', async () => {
      const table = [{ component_id: 'rows', type: 'table', data_collection_id: collectionId }];
      expect((await data(tokens.viewer, { preview: table })).status).toBe(403);
      expect((await data(undefined, { preview: table })).status).toBe(401);
      const widened = await data(tokens.editor, { preview: table });
      expect(widened.status, widened.text).toBe(403);
      expect(widened.body).toMatchObject({ code: 'forbidden' });
      // What the dashboard already shows, the dashboard's own editor may preview.
      const same = await data(tokens.editor, {
        preview: [
          { component_id: 'count', type: 'card', data_collection_id: collectionId, agg: 'count', title: 'All' },
        ],
      });
      expect(same.status, same.text).toBe(200);
      expect(same.body.components.count).toMatchObject({ value: 120 });
    });

    it('checks previewed components as a save would (400 with the field)', async () => {
      const answer = await data(tokens.owner, {
        preview: [{ component_id: 'bad', type: 'figure', data_collection_id: collectionId, chart: 'scatter' }],
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('preview');
    });
  });
}
