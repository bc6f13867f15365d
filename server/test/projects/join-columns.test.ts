import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/**
 * Joins between differently named columns (docs/project-yaml.md "Joins"): the sample metadata's
 * `sample` and the alpha diversity's `sample_id`, from the real nf-core/ampliseq results
 * (server/test/fixtures/ampliseq-results). Declared in project.yaml and through the API, exported
 * as declared, and carrying a dashboard's filters both ways.
 */
const FIXTURE = new URL('../fixtures/ampliseq-results/', import.meta.url);
const METADATA = 'input/Metadata_full.tsv';
const ALPHA = 'alpha_diversity_multi_canonical.tsv';

type Row = Record<string, string>;
async function tsv(name: string): Promise<{ text: string; rows: Row[] }> {
  const text = await readFile(fileURLToPath(new URL(name, FIXTURE)), 'utf8');
  const [header, ...lines] = text.trimEnd().split('\n');
  const columns = (header as string).split('\t');
  const rows = lines.map((line) => Object.fromEntries(line.split('\t').map((v, i) => [columns[i], v])));
  return { text, rows };
}

const definition = (extra = '') => `name: ampliseq joins
workflows:
  - name: ampliseq
    data_collections:
      - { tag: metadata, pattern: "input/Metadata_full\\\\.tsv", format: tsv }
      - { tag: alpha, pattern: "alpha_diversity_multi_canonical\\\\.tsv", format: tsv }
joins:
  - { name: metadata_alpha, left: metadata, right: alpha, left_on: [sample], right_on: [sample_id] }
${extra}`;

describeEachDialect('joins between differently named columns', (dialect) => {
  let server: TestServer;
  let ada: Session;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const importYaml = (yaml: string) =>
    call<{ project_id: string; changed: boolean; errors: { path: string; message: string; line?: number }[] }>(
      server,
      'POST',
      '/projects/import',
      { token: ada.access_token, body: yaml, headers: { 'content-type': 'application/yaml' } },
    );
  const collections = async (projectId: string) => {
    const workflows = await call<{ items: { workflow_id: string }[] }>(
      server,
      'GET',
      `/projects/${projectId}/workflows`,
      {
        token: ada.access_token,
      },
    );
    const listed = await call<{ items: { tag: string; data_collection_id: string }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
      { token: ada.access_token },
    );
    return Object.fromEntries(listed.body.items.map((item) => [item.tag, item.data_collection_id]));
  };

  it('round-trips left_on and right_on through project.yaml, and the schema names them', async () => {
    const first = await importYaml(definition());
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const exported = await call(server, 'GET', `/projects/${first.body.project_id}/yaml`, {
      token: ada.access_token,
    });
    expect(exported.status).toBe(200);
    expect((parse(exported.text) as { joins: unknown[] }).joins).toEqual([
      {
        name: 'metadata_alpha',
        left: 'metadata',
        right: 'alpha',
        left_on: ['sample'],
        right_on: ['sample_id'],
        how: 'inner',
      },
    ]);
    const again = await importYaml(exported.text);
    expect(again.status).toBe(200);
    expect(again.body.changed).toBe(false);
    const listed = await call<{ items: Record<string, unknown>[] }>(
      server,
      'GET',
      `/projects/${first.body.project_id}/joins`,
      { token: ada.access_token },
    );
    expect(listed.body.items[0]).toMatchObject({ left_on: ['sample'], right_on: ['sample_id'] });
    expect(listed.body.items[0]).not.toHaveProperty('on');
    const schema = JSON.stringify((await call(server, 'GET', '/projects/schema')).body);
    expect(schema).toContain('"left_on"');
    expect(schema).toContain('"right_on"');
  });

  it('refuses both forms at once, one side alone and lists of different lengths, at their lines', async () => {
    const answer = await importYaml(
      definition(`  - { name: both, left: metadata, right: alpha, on: [sample], left_on: [sample], right_on: [sample_id] }
  - { name: one_side, left: metadata, right: alpha, left_on: [sample] }
  - { name: uneven, left: metadata, right: alpha, left_on: [sample, habitat], right_on: [sample_id] }
  - { name: none, left: metadata, right: alpha }
`),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((error) => error.path)).toEqual([
      'joins[1].on',
      'joins[2].right_on',
      'joins[3].right_on',
      'joins[4].on',
    ]);
    for (const error of answer.body.errors) expect(error.line).toBeGreaterThan(0);
    const project = await importYaml(definition());
    const ids = await collections(project.body.project_id);
    const uneven = await call<{ errors: { path: string }[] }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/joins`,
      {
        token: ada.access_token,
        json: { name: 'uneven', left: ids.metadata, right: ids.alpha, left_on: ['sample'], right_on: ['a', 'b'] },
      },
    );
    expect(uneven.status).toBe(400);
    expect(uneven.body.errors.map((error) => error.path)).toEqual(['body.right_on']);
  });

  it('carries a filter on the metadata to the table keyed by sample_id, and back', async () => {
    const metadata = await tsv(METADATA);
    const alpha = await tsv(ALPHA);
    const project = await importYaml(definition().replace('name: ampliseq joins', 'name: ampliseq filters'));
    const ids = await collections(project.body.project_id);
    const token = ada.access_token;
    // The join through the API too, the other way round: alpha's sample_id with metadata's sample.
    const made = await call(server, 'POST', `/projects/${project.body.project_id}/joins`, {
      token,
      json: {
        name: 'alpha_metadata',
        left: ids.alpha,
        right: ids.metadata,
        left_on: ['sample_id'],
        right_on: ['sample'],
      },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ left_on: ['sample_id'], right_on: ['sample'], how: 'inner' });
    expect(await uploadFile(server, token, ids.metadata as string, { path: METADATA, content: metadata.text })).toBe(
      201,
    );
    expect(await uploadFile(server, token, ids.alpha as string, { path: ALPHA, content: alpha.text })).toBe(201);
    for (const id of [ids.metadata, ids.alpha]) {
      const upsert = await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: id } });
      expect(upsert.status, upsert.text).toBe(200);
    }
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.body.project_id,
        title: 'Diversity by habitat',
        components: [
          {
            component_id: 'habitat',
            type: 'interactive',
            widget: 'multiselect',
            column: 'habitat',
            data_collection_id: ids.metadata,
          },
          { component_id: 'samples', type: 'card', agg: 'count', data_collection_id: ids.metadata },
          {
            component_id: 'shannon',
            type: 'interactive',
            widget: 'range',
            column: 'shannon',
            data_collection_id: ids.alpha,
          },
          { component_id: 'alpha_samples', type: 'card', agg: 'count', data_collection_id: ids.alpha },
          {
            component_id: 'median_shannon',
            type: 'card',
            agg: 'median',
            column: 'shannon',
            data_collection_id: ids.alpha,
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const data = async (filters: { component_id: string; value: unknown }[]) => {
      const answer = await call<{ components: Record<string, { value: number }> }>(
        server,
        'POST',
        `/dashboards/${created.body.dashboard_id}/data`,
        { token, json: { filters } },
      );
      expect(answer.status, answer.text).toBe(200);
      return answer.body.components;
    };
    const soil = metadata.rows.filter((row) => row.habitat === 'Soil').map((row) => row.sample);
    expect(soil.length).toBeGreaterThan(0);
    const soilAlpha = alpha.rows.filter((row) => soil.includes(row.sample_id as string));
    const byHabitat = await data([{ component_id: 'habitat', value: ['Soil'] }]);
    expect(byHabitat.alpha_samples?.value).toBe(soilAlpha.length);
    const shannons = soilAlpha.map((row) => Number(row.shannon)).sort((a, b) => a - b);
    const middle = (shannons.length - 1) / 2;
    expect(byHabitat.median_shannon?.value).toBeCloseTo(
      ((shannons[Math.floor(middle)] as number) + (shannons[Math.ceil(middle)] as number)) / 2,
      9,
    );
    // Back: the samples of high Shannon narrow the metadata.
    const high = alpha.rows.filter((row) => Number(row.shannon) >= 6.5).map((row) => row.sample_id);
    const byShannon = await data([{ component_id: 'shannon', value: [6.5, null] }]);
    expect(byShannon.samples?.value).toBe(metadata.rows.filter((row) => high.includes(row.sample)).length);
    expect(byShannon.samples?.value).toBeLessThan(metadata.rows.length);
  });
});
