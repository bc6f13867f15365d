import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyTemplate, TemplateVariablesError, templateSchema } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  ADMIN,
  call,
  createUser,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { checkTemplateFile, loadTemplates, TEMPLATES_FOLDER } from '../../src/templates/catalog.js';

const AMPLISEQ = join(TEMPLATES_FOLDER, 'nf-core/ampliseq/2.16.0/template.yaml');

describe('the shipped templates', () => {
  it('all load, each in the folder its id names', async () => {
    const { templates, problems } = await loadTemplates(TEMPLATES_FOLDER);
    expect(problems).toEqual([]);
    expect(templates.map((template) => template.template_id)).toContain('nf-core/ampliseq/2.16.0');
  });
});

describe('a template file with errors', () => {
  it('reports every problem at once, each with its line', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a template bent out of shape on purpose
    const broken: any = parse(await readFile(AMPLISEQ, 'utf8'));
    broken.template_id = 'nf-core/ampliseq/9.9';
    broken.collections[13].tag = 'ancombc';
    broken.joins[10].right = 'trees';
    broken.dashboards[0].components[0].column = ['$', '{group_by_column}'].join('');
    broken.dashboards[0].components[18].agg = 'medianish';
    const problems = checkTemplateFile(stringify(broken), 'nf-core/ampliseq/2.16.0');
    // The schema's problem (an unknown aggregate) comes first; the rules across fields need a
    // file that follows the schema, and are checked in a second round, all at once.
    expect((problems as { path: string }[]).map((problem) => problem.path)).toEqual([
      'dashboards[0].components[18].agg',
    ]);
    broken.dashboards[0].components[18].agg = 'median';
    const all = checkTemplateFile(stringify(broken), 'nf-core/ampliseq/2.16.0') as {
      path: string;
      message: string;
      line?: number;
    }[];
    expect(all.map((problem) => problem.path).sort()).toEqual([
      'collections[13].tag',
      'dashboards[0].components[0].column',
      // The MA plot and the joins metadata_ma and rel_abundance_ma read `ma`, which the renamed
      // collection no longer is.
      'dashboards[0].components[57].data_collection_id',
      'joins[10].right',
      'joins[11].right',
      'joins[16].right',
      'template_id',
    ]);
    for (const problem of all) expect(problem.line).toBeGreaterThan(0);
    expect(all.find((problem) => problem.path === 'template_id')?.message).toContain('nf-core/ampliseq/2.16.0');
  });

  it('is left out of the catalog, and the others still load', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'templates-'));
    try {
      await mkdir(join(dir, 'nf-core/ampliseq/2.16.0'), { recursive: true });
      await mkdir(join(dir, 'broken/1.0'), { recursive: true });
      await writeFile(join(dir, 'nf-core/ampliseq/2.16.0/template.yaml'), await readFile(AMPLISEQ));
      await writeFile(join(dir, 'broken/1.0/template.yaml'), 'template_id: broken/1.0\npipeline: [\n');
      const { templates, problems } = await loadTemplates(dir);
      expect(templates).toHaveLength(1);
      expect(problems).toEqual([
        { file: 'broken/1.0/template.yaml', problems: [expect.objectContaining({ line: 3 })] },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('applying a template', () => {
  const template = templateSchema.parse(
    parse(`
template_id: test/one/1.0
pipeline: test/one
version: "1.0"
description: A test template.
variables:
  - { name: column, description: The column to count, required: true }
  - { name: group, description: The group column, detect: { collection: rows, columns: [habitat, group] } }
collections:
  - { tag: rows, pattern: "rows\\\\.tsv", format: tsv }
  - { tag: other, pattern: "other\\\\.tsv", format: tsv }
dashboards:
  - title: "Counts of \${column}"
    tabs: [{ tab_id: a, title: A }, { tab_id: b, title: B }]
    components:
      - { component_id: n, type: card, tab_id: a, data_collection_id: rows, agg: count_distinct, column: "\${column}" }
      - { component_id: g, type: figure, tab_id: a, data_collection_id: rows, chart: bar, x: "\${group}" }
      - { component_id: o, type: card, tab_id: b, data_collection_id: other, agg: count }
      - { component_id: t, type: text, tab_id: b, markdown: only text is left here }
`),
  );
  const folder = (files: string[], columns: string[]) => ({ files, columnsOf: async () => columns });

  it('refuses a missing required variable and an unknown one, both named at once', async () => {
    const failure = await applyTemplate(template, folder(['rows.tsv'], ['habitat']), {
      name: 'p',
      variables: { colour: 'x' },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TemplateVariablesError);
    expect((failure as TemplateVariablesError).missing).toEqual(['column']);
    expect((failure as TemplateVariablesError).unknown).toEqual(['colour']);
    expect((failure as Error).message).toBe('missing required variable: column; unknown variable: colour');
  });

  it('detects a variable from the data and leaves out what the folder lacks, tabs included', async () => {
    const applied = await applyTemplate(template, folder(['rows.tsv'], ['sample', 'group']), {
      name: 'p',
      variables: { column: 'sample' },
    });
    expect(applied.variables).toEqual({ column: 'sample', group: 'group' });
    expect(applied.definition.workflows[0]?.data_collections.map((c) => c.tag)).toEqual(['rows']);
    const [dashboard] = applied.dashboards;
    expect(dashboard?.title).toBe('Counts of sample');
    expect(dashboard?.tabs.map((tab) => tab.tab_id)).toEqual(['a']);
    expect(dashboard?.components.map((component) => component.component_id)).toEqual(['n', 'g']);
    expect(applied.left_out).toEqual({ collections: ['other'], components: ['o', 't'] });
  });

  it('leaves out a component whose optional variable has no value', async () => {
    const applied = await applyTemplate(template, folder(['rows.tsv'], ['sample']), {
      name: 'p',
      variables: { column: 'sample' },
    });
    expect(applied.dashboards[0]?.components.map((component) => component.component_id)).toEqual(['n']);
  });
});

describe('a template join between differently named columns', () => {
  const source = (key: string) => `
template_id: test/join/1.0
pipeline: test/join
version: "1.0"
description: A test template.
variables:
  - { name: group, description: The group column, detect: { collection: rows, columns: [habitat] } }
collections:
  - { tag: rows, pattern: "rows\\\\.tsv", format: tsv }
  - { tag: other, pattern: "other\\\\.tsv", format: tsv }
joins:
  - { name: by_sample, left: rows, right: other, left_on: [sample], right_on: [sample_id] }
  - { name: by_group, left: rows, right: other, left_on: ["\${${key}}"], right_on: [dominant] }
dashboards:
  - title: Rows
    components: [{ component_id: n, type: card, data_collection_id: rows, agg: count }]
`;

  it('takes a variable in its key columns, and is left out when the variable has no value', async () => {
    const template = templateSchema.parse(parse(source('group')));
    const folder = (columns: string[]) => ({ files: ['rows.tsv', 'other.tsv'], columnsOf: async () => columns });
    const applied = await applyTemplate(template, folder(['sample', 'habitat']), { name: 'p' });
    expect(applied.definition.joins).toEqual([
      { name: 'by_sample', left: 'rows', right: 'other', left_on: ['sample'], right_on: ['sample_id'], how: 'inner' },
      { name: 'by_group', left: 'rows', right: 'other', left_on: ['habitat'], right_on: ['dominant'], how: 'inner' },
    ]);
    const without = await applyTemplate(template, folder(['sample']), { name: 'p' });
    expect(without.definition.joins?.map((join) => join.name)).toEqual(['by_sample']);
  });

  it('names a variable the template does not have, at its place', () => {
    const problems = checkTemplateFile(source('grop'), 'test/join/1.0') as { path: string }[];
    expect(problems.map((problem) => problem.path)).toEqual(['joins[1].left_on[0]']);
  });
});

describe('a template collection with a derived column', () => {
  const source = (key: string) => `
template_id: test/derive/1.0
pipeline: test/derive
version: "1.0"
description: A test template.
variables:
  - { name: group, description: The group column, detect: { collection: rows, columns: [habitat, "site.name"] } }
collections:
  - { tag: rows, pattern: "rows\\\\.tsv", format: tsv }
  - tag: results
    pattern: "results\\\\.tsv"
    format: tsv
    read_options:
      null_values: [NA]
      derive: [{ name: "\${${key}}", from: contrast, regex: "^\${${key}}(.+)$" }]
joins:
  - { name: by_group, left: rows, right: results, on: ["\${${key}}"] }
dashboards:
  - title: Rows
    components: [{ component_id: n, type: card, data_collection_id: rows, agg: count }]
`;
  const folder = (columns: string[]) => ({ files: ['rows.tsv', 'results.tsv'], columnsOf: async () => columns });

  it('takes the variable in its name, its column and its expression, where the value is matched literally', async () => {
    const template = templateSchema.parse(parse(source('group')));
    const applied = await applyTemplate(template, folder(['sample', 'habitat']), { name: 'p' });
    const results = applied.definition.workflows[0]?.data_collections.find((c) => c.tag === 'results');
    expect(results?.read_options).toEqual({
      null_values: ['NA'],
      derive: [{ name: 'habitat', from: 'contrast', regex: '^habitat(.+)$' }],
    });
    const dotted = await applyTemplate(template, folder(['site.name']), { name: 'p' });
    const derived = dotted.definition.workflows[0]?.data_collections.find((c) => c.tag === 'results');
    expect(derived?.read_options?.derive).toEqual([
      { name: 'site.name', from: 'contrast', regex: '^site\\.name(.+)$' },
    ]);
    // Without a value, the derived column goes, and the join on it.
    const without = await applyTemplate(template, folder(['sample']), { name: 'p' });
    const kept = without.definition.workflows[0]?.data_collections.find((c) => c.tag === 'results');
    expect(kept?.read_options).toEqual({ null_values: ['NA'] });
    expect(without.definition.joins ?? []).toEqual([]);
  });

  it('names a variable the template does not have, at its place', () => {
    const problems = checkTemplateFile(source('grop'), 'test/derive/1.0') as { path: string }[];
    expect(problems.map((problem) => problem.path)).toEqual([
      'collections[1].read_options.derive[0].name',
      'collections[1].read_options.derive[0].regex',
      'joins[0].on[0]',
    ]);
  });
});

describe('GET /templates', () => {
  let server: TestServer;
  let admin: Session;
  let user: Session;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
    admin = await login(server, ADMIN.email, ADMIN.password);
    user = await createUser(server, admin.access_token, 'ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('lists the templates and their variables to any signed-in user, not to anonymous callers', async () => {
    for (const session of [admin, user]) {
      const answer = await call<{ items: Record<string, unknown>[] }>(server, 'GET', '/templates', {
        token: session.access_token,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.items).toContainEqual({
        template_id: 'nf-core/ampliseq/2.16.0',
        pipeline: 'nf-core/ampliseq',
        version: '2.16.0',
        description: expect.stringContaining('nf-core/ampliseq 2.16.0'),
        variables: [{ name: 'group_by', description: expect.any(String), required: false, default: null }],
      });
    }
    expect((await call(server, 'GET', '/templates')).status).toBe(401);
    expect((await call(server, 'GET', '/templates/nf-core/ampliseq/2.16.0')).status).toBe(401);
  });

  it('gives one template whole, by id or by pipeline; an unknown one is a 404 naming those there are', async () => {
    for (const id of ['nf-core/ampliseq/2.16.0', 'nf-core/ampliseq']) {
      const answer = await call<{ template_id: string; dashboards: unknown[] }>(server, 'GET', `/templates/${id}`, {
        token: user.access_token,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.template_id).toBe('nf-core/ampliseq/2.16.0');
      expect(answer.body.dashboards).toHaveLength(1);
    }
    const unknown = await call<{ code: string; detail: string }>(server, 'GET', '/templates/nf-core/rnaseq', {
      token: user.access_token,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('nf-core/ampliseq/2.16.0');
  });

  it('serves the JSON Schema of template.yaml to anyone', async () => {
    const answer = await call<{ $ref?: string; $defs?: Record<string, unknown> }>(server, 'GET', '/templates/schema');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.$defs ?? {})).toContain('Template');
  });
});
