import type { DashboardDataAnswer, DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { upsert } from './filter-fixture.js';

/** Samples and their habitat: the collection every per-sample one is joined to. */
const SAMPLES_CSV = ['sample,habitat', 'S1,soil', 'S2,soil', 'S3,river', 'S4,river'].join('\n');
/** The phyla found in each sample (only those found: a row means present). */
const ABUNDANCE_CSV = ['sample,phylum,share', 'S1,Acido,0.5', 'S2,Acido,0.2', 'S2,Firmi,0.8', 'S3,Firmi,1'].join('\n');
/** A per-sample measure keyed `sample_id`, joined to the samples only. */
const ALPHA_CSV = ['sample_id,shannon', 'S1,2.1', 'S2,3.4', 'S3,1.9', 'S4,2.7'].join('\n');
/** Results per phylum and habitat (none for Firmi in the soil). */
const RESULTS_CSV = ['phylum,habitat,lfc', 'Acido,soil,1.5', 'Acido,river,-0.5', 'Firmi,river,2'].join('\n');
/** The phyla: two chains of two joins link them to the samples, through the abundance and through the results. */
const PHYLA_CSV = ['phylum,kingdom', 'Acido,Bacteria', 'Firmi,Bacteria', 'Eury,Archaea'].join('\n');
/** A collection no join reaches. */
const ALONE_CSV = ['id', '1', '2', '3'].join('\n');

/**
 * Filters follow chains of joins (docs/dashboards.md "Filtering and cross-filtering"): a phylum chosen on the abundance
 * narrows the per-sample measures, two joins away, to the samples it was found in; where two chains
 * are equally short both must hold; a collection no join reaches is left whole; a new version of a
 * collection in the middle of a chain changes the answer; one without a table matches nothing.
 */
describeEachDialect('filters along chains of joins', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let projectId: string;
  let dashboardId: string;
  const ids: Record<string, string> = {};

  const collection = async (workflowId: string, tag: string, content?: string) => {
    const made = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflowId}/datacollections`,
      {
        token: admin.access_token,
        json: { tag, pattern: `${tag}\\.csv`, format: 'csv' },
      },
    );
    expect(made.status, made.text).toBe(201);
    const id = made.body.data_collection_id;
    if (content !== undefined) {
      expect(await uploadFile(server, admin.access_token, id, { path: `${tag}.csv`, content })).toBe(201);
      await upsert(server, admin.access_token, id);
    }
    ids[tag] = id;
    return id;
  };
  const join = async (
    name: string,
    left: string,
    right: string,
    keys: { on?: string[]; left_on?: string[]; right_on?: string[] },
  ) => {
    const made = await call(server, 'POST', `/projects/${projectId}/joins`, {
      token: admin.access_token,
      json: { name, left: ids[left], right: ids[right], ...keys },
    });
    expect(made.status, made.text).toBe(201);
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    const project = await createProjectWithUpload(server, admin.access_token, 'Soil survey', SAMPLES_CSV);
    projectId = project.projectId;
    ids.samples = project.collectionId;
    await upsert(server, admin.access_token, project.collectionId);
    await collection(project.workflowId, 'abundance', ABUNDANCE_CSV);
    await collection(project.workflowId, 'alpha', ALPHA_CSV);
    await collection(project.workflowId, 'results', RESULTS_CSV);
    await collection(project.workflowId, 'phyla', PHYLA_CSV);
    await collection(project.workflowId, 'alone', ALONE_CSV);
    await collection(project.workflowId, 'empty');
    await collection(project.workflowId, 'far', ['phylum,rank', 'Acido,1', 'Firmi,2'].join('\n'));
    await join('samples_abundance', 'samples', 'abundance', { on: ['sample'] });
    await join('samples_alpha', 'samples', 'alpha', { left_on: ['sample'], right_on: ['sample_id'] });
    await join('samples_results', 'samples', 'results', { on: ['habitat'] });
    await join('abundance_results', 'abundance', 'results', { on: ['phylum'] });
    await join('abundance_phyla', 'abundance', 'phyla', { on: ['phylum'] });
    await join('phyla_results', 'phyla', 'results', { on: ['phylum'] });
    // `far` hangs off a collection without a table: every chain to it crosses `empty`.
    await join('abundance_empty', 'abundance', 'empty', { on: ['phylum'] });
    await join('empty_far', 'empty', 'far', { on: ['phylum'] });
    const card = (component_id: string, tag: string) => ({
      component_id,
      type: 'card',
      agg: 'count',
      data_collection_id: ids[tag],
    });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: projectId,
        title: 'Survey',
        components: [
          {
            component_id: 'phylum',
            type: 'interactive',
            widget: 'multiselect',
            column: 'phylum',
            data_collection_id: ids.abundance,
          },
          {
            component_id: 'habitat',
            type: 'interactive',
            widget: 'multiselect',
            column: 'habitat',
            data_collection_id: ids.samples,
          },
          {
            component_id: 'rank',
            type: 'interactive',
            widget: 'multiselect',
            column: 'rank',
            data_collection_id: ids.far,
          },
          {
            component_id: 'alpha_rows',
            type: 'table',
            page_size: 10,
            sort: [{ column: 'sample_id', direction: 'asc' }],
            data_collection_id: ids.alpha,
          },
          {
            component_id: 'phyla_rows',
            type: 'table',
            page_size: 10,
            sort: [{ column: 'phylum', direction: 'asc' }],
            data_collection_id: ids.phyla,
          },
          card('results_count', 'results'),
          card('alone_count', 'alone'),
          card('alpha_count', 'alpha'),
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const data = async (filters: DashboardFilter[]) => {
    const answer = await call<DashboardDataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: admin.access_token,
      json: { filters },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.components;
  };
  const alphaSamples = async (filters: DashboardFilter[]) => {
    const table = (await data(filters)).alpha_rows as unknown as { rows: { sample_id: string }[] };
    return table.rows.map((row) => row.sample_id);
  };
  const phyla = async (filters: DashboardFilter[]) => {
    const table = (await data(filters)).phyla_rows as unknown as { rows: { phylum: string }[] };
    return table.rows.map((row) => row.phylum);
  };
  const count = async (filters: DashboardFilter[], card: string) =>
    ((await data(filters))[card] as { value: number }).value;

  it('narrows a collection two joins away to the rows linked to a matching one', async () => {
    expect(await alphaSamples([])).toEqual(['S1', 'S2', 'S3', 'S4']);
    // Acido was found in S1 and S2: abundance → samples → alpha.
    expect(await alphaSamples([{ component_id: 'phylum', value: ['Acido'] }])).toEqual(['S1', 'S2']);
    expect(await alphaSamples([{ component_id: 'phylum', value: ['Firmi'] }])).toEqual(['S2', 'S3']);
    // Nothing was found in S4: no phylum leaves it.
    expect(await alphaSamples([{ component_id: 'phylum', value: ['Acido', 'Firmi'] }])).toEqual(['S1', 'S2', 'S3']);
    expect(await alphaSamples([{ component_id: 'phylum', value: [] }])).toEqual([]);
  });

  it('holds every chain of the shortest length at once', async () => {
    // Soil samples hold Acido and Firmi; soil results exist for Acido only: both chains hold for Acido.
    expect(await phyla([{ component_id: 'habitat', value: ['soil'] }])).toEqual(['Acido']);
    // River samples hold Firmi; river results exist for both: Firmi.
    expect(await phyla([{ component_id: 'habitat', value: ['river'] }])).toEqual(['Firmi']);
    expect(await phyla([])).toEqual(['Acido', 'Eury', 'Firmi']);
  });

  it('takes the shortest chain, and leaves alone what no chain of tables reaches', async () => {
    // Habitat river reaches the results directly (1 join): its two rows.
    expect(await count([{ component_id: 'habitat', value: ['river'] }], 'results_count')).toBe(2);
    // Acido reaches the results directly too, through abundance_results: its two rows.
    expect(await count([{ component_id: 'phylum', value: ['Acido'] }], 'results_count')).toBe(2);
    // The rank of `far` reaches alpha by no chain whose tables all exist: it matches nothing there,
    // and leaves the collection no join reaches whole.
    expect(await count([{ component_id: 'rank', value: ['1'] }], 'alpha_count')).toBe(0);
    expect(await count([{ component_id: 'rank', value: ['1'] }], 'alone_count')).toBe(3);
    expect(await count([{ component_id: 'phylum', value: ['Acido'] }], 'alone_count')).toBe(3);
  });

  it('answers anew when a collection in the middle of a chain gets a new version', async () => {
    const byAcido = [{ component_id: 'phylum', value: ['Acido'] }];
    expect(await alphaSamples(byAcido)).toEqual(['S1', 'S2']);
    // S2 leaves the samples table, which sits between the abundance and alpha.
    const moved = ['sample,habitat', 'S1,soil', 'S3,river', 'S4,river'].join('\n');
    expect(await uploadFile(server, admin.access_token, ids.samples!, { path: 't.csv', content: moved })).toBe(201);
    await upsert(server, admin.access_token, ids.samples!);
    // S2 is no longer a sample: the chain through the samples no longer links it.
    expect(await alphaSamples(byAcido)).toEqual(['S1']);
  });
});
