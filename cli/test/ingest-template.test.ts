import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { call, startTestServer, type TestServer } from '../../test/support/test-server.js';
import { runCli } from './run-cli.js';

// A hang guard, not a speed check: the CLI process loads the server's modules and DuckDB.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

/**
 * The nf-core/ampliseq 2.16.0 template applied by `service ingest --template` to the project's
 * copy of the real results (server/test/fixtures/ampliseq-results: the shared data, a few large
 * tables cut down). Every number checked is computed here from the TSV the server read.
 */
const FIXTURE = fileURLToPath(new URL('../../server/test/fixtures/ampliseq-results/', import.meta.url));
const KEY = 'provisioning-key-for-the-template-test-0123456789';
const TEMPLATE = fileURLToPath(new URL('../../templates/nf-core/ampliseq/2.16.0/template.yaml', import.meta.url));

type Row = Record<string, string>;
async function tsv(name: string): Promise<Row[]> {
  const [header, ...lines] = (await readFile(join(FIXTURE, name), 'utf8')).trimEnd().split('\n');
  const columns = (header as string).split('\t');
  return lines.map((line) => Object.fromEntries(line.split('\t').map((value, index) => [columns[index], value])));
}
const numbers = (rows: Row[], column: string) =>
  rows
    .map((row) => row[column] ?? '')
    .filter((value) => value !== '')
    .map(Number);
/** Interpolated, as pandas. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
}
const distinct = (rows: Row[], column: string) => new Set(rows.map((row) => row[column]).filter((v) => v)).size;

interface ComponentAnswer {
  value?: number;
  error?: { code: string; message: string };
  counts?: { up: number; down: number; ns: number };
  options?: { value: unknown; count: number }[];
  [key: string]: unknown;
}

let server: TestServer;
let token: string;
let dashboardId: string;
let dir: string;
let ingestOutput: { code: number | null; stderr: string };
let dashboard: { tabs: { tab_id: string }[]; components: { component_id: string; tab_id?: string; type: string }[] };

async function tab(tabId: string, filters: { component_id: string; value: unknown }[] = []) {
  const answer = await call<{ components: Record<string, ComponentAnswer> }>(
    server,
    'POST',
    `/dashboards/${dashboardId}/data`,
    { token, json: { tab_id: tabId, filters } },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body.components;
}

beforeAll(async () => {
  server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
  const parent = await mkdtemp(join(tmpdir(), 'service-template-'));
  dir = join(parent, 'ampliseq_run');
  await cp(FIXTURE, dir, { recursive: true });
  const result = await runCli([
    'ingest',
    dir,
    '--user',
    'ada@example.org',
    '--server',
    server.url,
    '--provisioning-key',
    KEY,
    '--template',
    'nf-core/ampliseq/2.16.0',
  ]);
  ingestOutput = result;
  const link = new URL(result.stdout.trim() || 'http://invalid/');
  dashboardId = (new URLSearchParams(link.hash.slice(1)).get('next') ?? '').replace('/dashboards/', '');
  const session = await call<{ access_token: string }>(server, 'POST', '/auth/provision_user', {
    json: { email: 'ada@example.org' },
    headers: { 'x-provisioning-key': KEY },
  });
  token = session.body.access_token;
  dashboard = (await call<typeof dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token })).body;
});

afterAll(async () => {
  await server?.stop();
  await server?.database.drop();
  await rm(join(dir, '..'), { recursive: true, force: true });
});

describe('service ingest --template nf-core/ampliseq/2.16.0', () => {
  it('ingests every collection of the template, each with the rows of its file', async () => {
    expect(ingestOutput.code, ingestOutput.stderr).toBe(0);
    expect(ingestOutput.stderr).toContain('Template nf-core/ampliseq/2.16.0: 15 collections.');
    const project = (await call<{ project_id: string }>(server, 'GET', `/dashboards/${dashboardId}`, { token })).body;
    const workflows = await call<{ items: { workflow_id: string }[] }>(
      server,
      'GET',
      `/projects/${project.project_id}/workflows`,
      { token },
    );
    const collections = await call<{ items: { data_collection_id: string; tag: string; type: string }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections?limit=200`,
      { token },
    );
    const files: Record<string, string> = {
      metadata: 'input/Metadata_full.tsv',
      alpha: 'alpha_diversity_multi_canonical.tsv',
      rarefaction: 'rarefaction_canonical.tsv',
      rel_abundance: 'taxonomy_rel_abundance.tsv',
      stacked_taxonomy: 'stacked_taxonomy_canonical.tsv',
      sunburst: 'sunburst_canonical.tsv',
      sankey: 'sankey_canonical.tsv',
      upset: 'upset_canonical.tsv',
      pcoa: 'embedding_pcoa.tsv',
      bray_curtis: 'bray_curtis_canonical.tsv',
      phyla: 'complex_heatmap_canonical.tsv',
      ancombc: 'ancombc_results.tsv',
      ma: 'ma_canonical.tsv',
      tree: 'phylogenetic_tree_metadata_canonical.tsv',
    };
    expect(collections.body.items.map((item) => item.tag).sort()).toEqual([...Object.keys(files), 'multiqc'].sort());
    for (const item of collections.body.items) {
      if (item.type === 'multiqc') {
        const report = await call<{ samples: string[] }>(
          server,
          'GET',
          `/datacollections/${item.data_collection_id}/multiqc`,
          { token },
        );
        expect(report.body.samples.length).toBeGreaterThanOrEqual(12);
        continue;
      }
      const summary = await call<{ rows: number }>(
        server,
        'GET',
        `/datacollections/${item.data_collection_id}/summary`,
        { token },
      );
      expect([item.tag, summary.body.rows]).toEqual([item.tag, (await tsv(files[item.tag] as string)).length]);
    }
  });

  it('makes the six tabs, every component of each answering data without error', async () => {
    expect(dashboard.tabs.map((t) => t.tab_id)).toEqual([
      'qc',
      'alpha',
      'community',
      'ordination',
      'differential',
      'phylogeny',
    ]);
    // Nothing of the template was left out: the folder has every file it reads.
    const template = parse(await readFile(TEMPLATE, 'utf8')) as {
      dashboards: { components: { component_id: string }[] }[];
    };
    expect(dashboard.components.map((c) => c.component_id)).toEqual(
      template.dashboards[0]?.components.map((c) => c.component_id),
    );
    for (const { tab_id } of dashboard.tabs) {
      const answers = await tab(tab_id);
      const expected = dashboard.components
        .filter((component) => component.type !== 'text')
        .filter((component) => component.tab_id === tab_id)
        .map((component) => component.component_id);
      expect(Object.keys(answers).sort()).toEqual(expected.sort());
      for (const [id, answer] of Object.entries(answers)) expect([id, answer.error]).toEqual([id, undefined]);
    }
  });

  it('QC overview: the samples, and the habitat filter with its counts', async () => {
    const metadata = await tsv('input/Metadata_full.tsv');
    const answers = await tab('qc');
    expect(answers.qc_samples?.value).toBe(metadata.length);
    const counts = Object.fromEntries((answers.habitat?.options ?? []).map((o) => [o.value, o.count]));
    const riverwater = metadata.filter((row) => row.habitat === 'Riverwater').length;
    expect(counts.Riverwater).toBe(riverwater);
    expect(Object.keys(counts)).toHaveLength(distinct(metadata, 'habitat'));
    const filtered = await tab('qc', [{ component_id: 'habitat', value: ['Riverwater'] }]);
    expect(filtered.qc_samples?.value).toBe(riverwater);
  });

  it('Alpha diversity: the samples, the median Shannon and Faith PD, narrowed by habitat', async () => {
    const alpha = await tsv('alpha_diversity_multi_canonical.tsv');
    const answers = await tab('alpha');
    expect(answers.alpha_samples?.value).toBe(alpha.length);
    expect(answers.median_shannon?.value).toBeCloseTo(median(numbers(alpha, 'shannon')), 9);
    expect(answers.median_faith_pd?.value).toBeCloseTo(median(numbers(alpha, 'faith_pd')), 9);
    const soil = alpha.filter((row) => row.habitat === 'Soil');
    const filtered = await tab('alpha', [{ component_id: 'habitat', value: ['Soil'] }]);
    expect(filtered.alpha_samples?.value).toBe(soil.length);
    expect(filtered.median_shannon?.value).toBeCloseTo(median(numbers(soil, 'shannon')), 9);
  });

  it('Community: the median relative abundance, the phyla and the habitats', async () => {
    const abundance = await tsv('taxonomy_rel_abundance.tsv');
    const metadata = await tsv('input/Metadata_full.tsv');
    const answers = await tab('community');
    expect(answers.median_rel_abundance?.value).toBeCloseTo(median(numbers(abundance, 'rel_abundance')), 12);
    expect(answers.phyla_count?.value).toBe(distinct(abundance, 'Phylum'));
    expect(answers.habitats_count?.value).toBe(distinct(metadata, 'habitat'));
  });

  it('Ordination: the samples, the range of axis 1 and the top of axis 2', async () => {
    const pcoa = await tsv('embedding_pcoa.tsv');
    const answers = await tab('ordination');
    const dim1 = numbers(pcoa, 'dim_1');
    expect(answers.ordination_samples?.value).toBe(pcoa.length);
    expect(answers.dim1_range?.value).toBeCloseTo(Math.max(...dim1) - Math.min(...dim1), 12);
    expect(answers.dim2_max?.value).toBeCloseTo(Math.max(...numbers(pcoa, 'dim_2')), 12);
  });

  it('Differential abundance: the taxa, the significant ones up and down, narrowed by phylum', async () => {
    const results = await tsv('ancombc_results.tsv');
    const answers = await tab('differential');
    expect(answers.taxa_analysed?.value).toBe(results.length);
    const significant = results.filter((row) => Number(row.q_val) < 0.05);
    expect(answers.volcano_chart?.counts).toEqual({
      up: significant.filter((row) => Number(row.lfc) >= 0).length,
      down: significant.filter((row) => Number(row.lfc) <= 0).length,
      ns: results.length - significant.length,
    });
    expect(answers.median_lfc?.value).toBeCloseTo(median(numbers(results, 'lfc')), 12);
    const filtered = await tab('differential', [{ component_id: 'phylum', value: ['Proteobacteria'] }]);
    expect(filtered.taxa_analysed?.value).toBe(results.filter((row) => row.Phylum === 'Proteobacteria').length);
  });

  it('Phylogeny: the ASVs, their mean confidence and the genera', async () => {
    const tips = await tsv('phylogenetic_tree_metadata_canonical.tsv');
    const answers = await tab('phylogeny');
    expect(answers.asv_count?.value).toBe(tips.length);
    const confidence = numbers(tips, 'confidence');
    expect(answers.mean_confidence?.value).toBeCloseTo(confidence.reduce((a, b) => a + b, 0) / confidence.length, 9);
    expect(answers.genera_count?.value).toBe(distinct(tips, 'Genus'));
  });
});

describe('the metadata filters of the ampliseq dashboard', () => {
  it('narrow every tab, through sample and sample_id alike', async () => {
    const metadata = await tsv('input/Metadata_full.tsv');
    const soil = new Set(metadata.filter((row) => row.habitat === 'Soil').map((row) => row.sample));
    const bySample = (rows: Row[], column = 'sample_id') => rows.filter((row) => soil.has(row[column] as string));
    const habitat = [{ component_id: 'habitat', value: ['Soil'] }];
    expect((await tab('qc', habitat)).qc_samples?.value).toBe(soil.size);
    expect((await tab('alpha', habitat)).alpha_samples?.value).toBe(
      bySample(await tsv('alpha_diversity_multi_canonical.tsv')).length,
    );
    const community = await tab('community', habitat);
    const abundance = bySample(await tsv('taxonomy_rel_abundance.tsv'), 'sample');
    expect(community.median_rel_abundance?.value).toBeCloseTo(median(numbers(abundance, 'rel_abundance')), 12);
    // The sankey (keyed by sample_id): its first level's flows add up to the soil samples' abundance.
    const sankey = bySample(await tsv('sankey_canonical.tsv')).filter((row) => row.Kingdom && row.Phylum);
    const links = (community.sankey_chart?.links ?? []) as { level: number; value: number }[];
    const firstLevel = links.filter((link) => link.level === 0).reduce((sum, link) => sum + link.value, 0);
    expect(firstLevel).toBeCloseTo(
      numbers(sankey, 'abundance').reduce((a, b) => a + b, 0),
      9,
    );
    expect((await tab('ordination', habitat)).ordination_samples?.value).toBe(
      bySample(await tsv('embedding_pcoa.tsv')).length,
    );
    // The tree through its dominant habitat.
    const tips = await tsv('phylogenetic_tree_metadata_canonical.tsv');
    expect((await tab('phylogeny', habitat)).asv_count?.value).toBe(
      tips.filter((row) => row.dominant_habitat === 'Soil').length,
    );
    // One sample chosen by its id on the metadata narrows the tables keyed by sample_id to it.
    const one = await tab('alpha', [{ component_id: 'sample', value: ['SRR10070130'] }]);
    expect(one.alpha_samples?.value).toBe(1);
    expect(one.median_shannon?.value).toBeCloseTo(6.5218, 4);
  });
});

describe('the taxonomy filters of the ampliseq dashboard', () => {
  it('narrow every tab: the taxa chosen, and the samples they were found in', async () => {
    // Fusobacteria was found in 3 of the 12 samples: a phylum that narrows the per-sample tabs.
    const abundance = await tsv('taxonomy_rel_abundance.tsv');
    const found = new Set(abundance.filter((row) => row.Phylum === 'Fusobacteria').map((row) => row.sample));
    expect(found.size).toBe(3);
    const bySample = (rows: Row[], column = 'sample_id') => rows.filter((row) => found.has(row[column] as string));
    const phylum = [{ component_id: 'phylum', value: ['Fusobacteria'] }];
    // Sample-level tabs, through the metadata: two joins away.
    expect((await tab('qc', phylum)).qc_samples?.value).toBe(3);
    expect((await tab('alpha', phylum)).alpha_samples?.value).toBe(
      bySample(await tsv('alpha_diversity_multi_canonical.tsv')).length,
    );
    expect((await tab('ordination', phylum)).ordination_samples?.value).toBe(
      bySample(await tsv('embedding_pcoa.tsv')).length,
    );
    // Taxon-level tabs, on the phylum.
    expect((await tab('community', phylum)).phyla_count?.value).toBe(1);
    const results = (await tsv('ancombc_results.tsv')).filter((row) => row.Phylum === 'Fusobacteria');
    expect((await tab('differential', phylum)).taxa_analysed?.value).toBe(results.length);
    const tips = (await tsv('phylogenetic_tree_metadata_canonical.tsv')).filter((row) => row.Phylum === 'Fusobacteria');
    expect((await tab('phylogeny', phylum)).asv_count?.value).toBe(tips.length);
  });
});

describe('the habitat filter on the differential abundance results', () => {
  it('keeps the contrasts of the habitat chosen, read from their name (habitatSoil)', async () => {
    const soil = (await tsv('ancombc_results.tsv')).filter((row) => row.contrast === 'habitatSoil');
    expect(soil).toHaveLength(32);
    const answers = await tab('differential', [{ component_id: 'habitat', value: ['Soil'] }]);
    expect(answers.ancombc_table?.total).toBe(32);
    expect(answers.taxa_analysed?.value).toBe(32);
    expect(answers.phyla_tested?.value).toBe(distinct(soil, 'Phylum'));
    expect(answers.median_lfc?.value).toBeCloseTo(median(numbers(soil, 'lfc')), 12);
    const significant = soil.filter((row) => Number(row.q_val) < 0.05);
    expect(answers.volcano_chart?.counts).toEqual({
      up: significant.filter((row) => Number(row.lfc) >= 0).length,
      down: significant.filter((row) => Number(row.lfc) <= 0).length,
      ns: soil.length - significant.length,
    });
    const contrasts = (answers.contrast?.options ?? []).map((option) => option.value);
    expect(contrasts).toEqual(['habitatSoil']);
    // The MA plot's table names its contrasts alike.
    const ma = (await tsv('ma_canonical.tsv')).filter((row) => row.contrast === 'habitatSoil');
    expect(answers.ma_chart?.total_rows).toBe(ma.length);
    // Joins carry filters either way: the Contrast filter narrows the sample metadata to Soil.
    const metadata = await tsv('input/Metadata_full.tsv');
    const byContrast = await tab('qc', [{ component_id: 'contrast', value: ['habitatSoil'] }]);
    expect(byContrast.qc_samples?.value).toBe(metadata.filter((row) => row.habitat === 'Soil').length);
  });

  it('leaves the tab empty for the reference level, which no contrast names (Groundwater)', async () => {
    const answers = await tab('differential', [{ component_id: 'habitat', value: ['Groundwater'] }]);
    expect(answers.ancombc_table?.total).toBe(0);
    expect(answers.taxa_analysed?.value).toBe(0);
    expect(answers.ma_chart?.total_rows).toBe(0);
    for (const [id, answer] of Object.entries(answers)) expect([id, answer.error]).toEqual([id, undefined]);
  });

  it('gives the results the habitat column the join is on, as text', async () => {
    const answers = await tab('differential');
    const columns = (answers.ancombc_table?.columns ?? []) as { name: string; type: string }[];
    expect(columns.find((column) => column.name === 'habitat')?.type).toBe('string');
  });
});

describe('service ingest with a template it cannot apply', () => {
  it('names an unknown template, and a variable the template does not have, and exits 1', async () => {
    const base = ['ingest', dir, '--user', 'ada@example.org', '--server', server.url, '--provisioning-key', KEY];
    const unknown = await runCli([...base, '--template', 'nf-core/nosuch']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(
      /unknown template nf-core\/nosuch: .*no template nf-core\/nosuch \(templates: nf-core\/ampliseq\/2\.16\.0/,
    );
    const variable = await runCli([...base, '--template', 'nf-core/ampliseq', '--var', 'colour=red']);
    expect(variable.code).toBe(1);
    expect(variable.stderr).toContain('unknown variable: colour');
  });
});
