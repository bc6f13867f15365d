import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { serverWithPeople } from '../dashboards/analytics-table.js';
import { ampliseqProject, PROJECT_YAML, REPORT } from './ampliseq-fixture.js';

/**
 * MultiQC collections end to end on a real report (server/test/fixtures/multiqc): ingestion into
 * the general-statistics table, `GET /datacollections/{id}/multiqc`, the `multiqc` component's
 * data by plot type, and filtering by samples — directly, through joined sample metadata, and by
 * clicking a sample in a plot (docs/data.md and docs/dashboards.md, "MultiQC").
 */

interface Summary {
  version: number | null;
  reports: { run_id: string; multiqc_version: string | null; creation_date: string | null }[];
  modules: { anchor: string; name: string }[];
  samples: string[];
  plots: { anchor: string; title: string; plot_type: string; module: string; datasets: string[] }[];
}
type Data = Record<string, unknown> & { samples: string[] };

describeEachDialect('MultiQC collections', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let ids: Awaited<ReturnType<typeof ampliseqProject>>;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    bob = await people.session('bob@example.org');
    ids = await ampliseqProject(server, ada.access_token);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const dashboardData = async (components: Record<string, unknown>[], filters: unknown[] = []) => {
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: ids.projectId, title: 'QC', components },
    });
    expect(created.status, created.text).toBe(201);
    const data = await call<{ components: Record<string, Data> }>(
      server,
      'POST',
      `/dashboards/${created.body.dashboard_id}/data`,
      { token: ada.access_token, json: { filters } },
    );
    expect(data.status, data.text).toBe(200);
    return data.body.components;
  };
  const plot = (component_id: string, anchor: string, extra: Record<string, unknown> = {}) => ({
    component_id,
    type: 'multiqc',
    data_collection_id: ids.multiqcId,
    plot: anchor,
    ...extra,
  });

  it('lists the report, its modules, samples and every plot with its type', async () => {
    const answer = await call<Summary>(server, 'GET', `/datacollections/${ids.multiqcId}/multiqc`, {
      token: ada.access_token,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.reports).toHaveLength(1);
    expect(answer.body.reports[0]?.multiqc_version).toBe('1.16.dev0');
    expect(answer.body.modules.map((module) => module.anchor)).toEqual([
      'cutadapt',
      'fastqc',
      'multiqc_software_versions',
    ]);
    expect(answer.body.plots).toHaveLength(14);
    const byAnchor = new Map(answer.body.plots.map((entry) => [entry.anchor, entry]));
    expect(byAnchor.get('general_stats_table')).toMatchObject({
      plot_type: 'table',
      module: 'general_stats',
      title: 'General Statistics',
    });
    expect(byAnchor.get('fastqc_sequence_counts_plot')).toMatchObject({ plot_type: 'bar', module: 'fastqc' });
    expect(byAnchor.get('cutadapt_filtered_reads_plot')).toMatchObject({ plot_type: 'bar', module: 'cutadapt' });
    expect(byAnchor.get('fastqc_per_base_sequence_quality_plot')).toMatchObject({
      plot_type: 'line',
      module: 'fastqc',
    });
    expect(byAnchor.get('fastqc-status-check-heatmap')).toMatchObject({ plot_type: 'heatmap', module: 'fastqc' });
    expect(byAnchor.get('fastqc_per_sequence_gc_content_plot')?.datasets).toEqual(['Percentages', 'Counts']);
    expect(answer.body.samples).toContain('SRR10070130_1');
    expect(answer.body.samples).toContain('SRR10070130');
  });

  it('holds the general statistics as a table: a row per sample, a number column per metric', async () => {
    const preview = await call<{
      columns: { name: string; type: string }[];
      rows: Record<string, unknown>[];
      total: number;
    }>(server, 'GET', `/datacollections/${ids.multiqcId}/preview?limit=100&sort=sample:asc`, {
      token: ada.access_token,
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.total).toBe(36);
    const types = Object.fromEntries(preview.body.columns.map((column) => [column.name, column.type]));
    expect(types).toMatchObject({
      sample: 'string',
      'cutadapt-percent_trimmed': 'double',
      'fastqc-percent_gc': 'double',
      'fastqc-total_sequences': 'double',
    });
    const row = preview.body.rows.find((entry) => entry.sample === 'SRR10070130_1');
    expect(row).toMatchObject({
      'fastqc-total_sequences': 99321,
      'fastqc-percent_gc': 51,
      'cutadapt-percent_trimmed': null,
    });
    expect(preview.body.rows.find((entry) => entry.sample === 'SRR10070130')?.['cutadapt-percent_trimmed']).toBeCloseTo(
      9.38876910718307,
      12,
    );
  });

  it('answers a bar plot per sample and category, a line per sample, a heatmap and a table', async () => {
    const components = await dashboardData([
      plot('counts', 'fastqc_sequence_counts_plot'),
      plot('percent', 'fastqc_sequence_counts_plot', { percentages: true }),
      plot('quality', 'fastqc_per_base_sequence_quality_plot'),
      plot('gc_counts', 'fastqc_per_sequence_gc_content_plot', { dataset: 1 }),
      plot('status', 'fastqc-status-check-heatmap'),
      plot('general', 'general_stats_table'),
    ]);
    const counts = components.counts as Data & { series: { name: string; values: number[] }[] };
    expect(counts.plot_type).toBe('bar');
    expect(counts.samples).toHaveLength(24);
    const first = counts.samples.indexOf('SRR10070130_1');
    expect(Object.fromEntries(counts.series.map((entry) => [entry.name, entry.values[first]]))).toEqual({
      'Unique Reads': 8336,
      'Duplicate Reads': 90985,
    });
    const percent = components.percent as typeof counts;
    expect(percent.series.find((entry) => entry.name === 'Unique Reads')?.values[first]).toBeCloseTo(
      (8336 / 99321) * 100,
      10,
    );

    const quality = components.quality as Data & {
      series: { name: string; points: [number, number][] }[];
      bands: unknown[];
    };
    expect(quality.plot_type).toBe('line');
    expect(quality.series).toHaveLength(24);
    expect(quality.series.find((entry) => entry.name === 'SRR10070130_1')?.points.slice(0, 2)).toEqual([
      [1, 32.39770038561835],
      [2, 32.787537378802064],
    ]);
    expect(quality.bands).toEqual([
      { axis: 'y', from: 28, to: 100, color: '#009500' },
      { axis: 'y', from: 20, to: 28, color: '#a07300' },
      { axis: 'y', from: 0, to: 20, color: '#990101' },
    ]);
    const gc = components.gc_counts as typeof quality;
    expect(gc.series.find((entry) => entry.name === 'SRR10070130_1')?.points[0]).toEqual([0, 1011]);

    const status = components.status as Data & { x: string[]; y: string[]; values: number[][] };
    expect(status, JSON.stringify(status).slice(0, 300)).toMatchObject({ plot_type: 'heatmap' });
    expect(status.plot_type).toBe('heatmap');
    expect(status.x[0]).toBe('Basic Statistics');
    expect(status.y).toHaveLength(24);
    expect(status.values[0]?.slice(0, 3)).toEqual([1, 0.25, 1]);

    const general = components.general as Data & {
      columns: { key: string; title: string }[];
      rows: { sample: string; values: Record<string, number> }[];
    };
    expect(general.plot_type).toBe('table');
    expect(general.columns.map((column) => column.key)).toContain('fastqc-percent_gc');
    expect(general.columns.find((column) => column.key === 'cutadapt-percent_trimmed')?.title).toBe('Trimmed bases');
    expect(general.rows.find((row) => row.sample === 'SRR10070130_1')?.values['fastqc-total_sequences']).toBe(99321);
    // As MultiQC shows them: each sample's row, then its reads' rows.
    expect(general.rows.slice(0, 6).map((row) => row.sample)).toEqual([
      'SRR10070130',
      'SRR10070130_1',
      'SRR10070130_2',
      'SRR10070131',
      'SRR10070131_1',
      'SRR10070131_2',
    ]);
    expect(general.rows).toHaveLength(36);
  });

  it('narrows every plot to the samples a filter on joined metadata leaves, reads included', async () => {
    const habitat = {
      component_id: 'habitat',
      type: 'interactive',
      widget: 'multiselect',
      column: 'habitat',
      data_collection_id: ids.metadataId,
    };
    const components = await dashboardData(
      [habitat, plot('counts', 'fastqc_sequence_counts_plot'), plot('general', 'general_stats_table')],
      [{ component_id: 'habitat', value: ['Groundwater'] }],
    );
    const groundwater = ['SRR10070132', 'SRR10070133', 'SRR10070141'];
    expect([...(components.counts?.samples ?? [])].sort()).toEqual(groundwater.flatMap((s) => [`${s}_1`, `${s}_2`]));
    expect(components.counts?.hidden_samples).toBe(18);
    expect([...(components.general?.samples ?? [])].sort()).toEqual(
      groundwater.flatMap((s) => [s, `${s}_1`, `${s}_2`]),
    );
  });

  it('filters the rest of the dashboard by a sample clicked in a plot', async () => {
    const metadataTable = { component_id: 'meta', type: 'table', data_collection_id: ids.metadataId };
    const components = await dashboardData(
      [
        plot('counts', 'fastqc_sequence_counts_plot'),
        plot('quality', 'fastqc_per_base_sequence_quality_plot'),
        metadataTable,
      ],
      [{ component_id: 'counts', value: ['SRR10070149_2'] }],
    );
    // A read stands for its sample: both of its reads are drawn.
    expect(components.quality?.samples).toEqual(['SRR10070149_1', 'SRR10070149_2']);
    // The clicked plot keeps every sample (a filter never narrows its own component).
    expect(components.counts?.samples).toHaveLength(24);
    // The read's sample reaches the joined metadata.
    const meta = components.meta as unknown as { rows: { sample: string; habitat: string }[] };
    expect(meta.rows.map((row) => [row.sample, row.habitat])).toEqual([['SRR10070149', 'Sediment']]);
  });

  it('is read by the project’s readers only, and is no route for a table collection', async () => {
    const asBob = await call(server, 'GET', `/datacollections/${ids.multiqcId}/multiqc`, { token: bob.access_token });
    const bobPreview = await call(server, 'GET', `/datacollections/${ids.multiqcId}/preview`, {
      token: bob.access_token,
    });
    expect(asBob.status).toBe(bobPreview.status);
    expect([403, 404]).toContain(asBob.status);
    const anonymous = await call(server, 'GET', `/datacollections/${ids.multiqcId}/multiqc`);
    expect(anonymous.status).toBe(401);
    const table = await call(server, 'GET', `/datacollections/${ids.metadataId}/multiqc`, { token: ada.access_token });
    expect(table.status).toBe(404);
    expect(table.body).toMatchObject({ code: 'not_found' });
  });

  it('refuses a multiqc component on a table collection, and an unknown plot answers in its slot', async () => {
    const created = await call(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: ids.projectId,
        title: 'Wrong',
        components: [{ ...plot('p', 'x'), data_collection_id: ids.metadataId }],
      },
    });
    expect(created.status).toBe(400);
    expect(created.text).toContain('MultiQC collection');
    const components = await dashboardData([plot('missing', 'no_such_plot')]);
    expect(components.missing).toMatchObject({ error: { code: 'unknown_plot', field: 'plot' } });
  });
});

describe('MultiQC collection definitions', () => {
  it('needs parquet, the form MultiQC writes its data in since 1.25', async () => {
    const { server, session } = await serverWithPeople('sqlite');
    try {
      const ada = await session('ada@example.org');
      const imported = await call(server, 'POST', '/projects/import', {
        token: ada.access_token,
        json: { yaml: PROJECT_YAML.replace('format: parquet', 'format: csv') },
      });
      expect(imported.status).toBe(400);
      expect(imported.text).toContain('set format: parquet');
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

describeEachDialect('MultiQC reports that cannot be read', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let ids: Awaited<ReturnType<typeof ampliseqProject>>;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    ids = await ampliseqProject(server, ada.access_token);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** A second run's report with `content`, then an upsert: its answer, and the table's version after. */
  const ingestSecondRun = async (content: Buffer) => {
    const status = await uploadFile(server, ada.access_token, ids.multiqcId, {
      run: 'run2',
      path: 'multiqc/multiqc_data/multiqc.parquet',
      content,
    });
    expect(status).toBe(201);
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token: ada.access_token,
      json: { data_collection_id: ids.multiqcId },
    });
    const summary = await call<Summary>(server, 'GET', `/datacollections/${ids.multiqcId}/multiqc`, {
      token: ada.access_token,
    });
    return { upserted, summary: summary.body };
  };

  it('refuses a truncated report, naming the file, and keeps the table as it was', async () => {
    const { upserted, summary } = await ingestSecondRun(REPORT.subarray(0, 100_000));
    expect(upserted.status).toBe(400);
    expect(upserted.body).toMatchObject({ code: 'validation_failed' });
    expect(upserted.text).toContain('multiqc/multiqc_data/multiqc.parquet');
    expect(upserted.text).not.toMatch(/\/tmp\/|service-test-/);
    expect(summary.version).toBe(0);
    expect(summary.reports).toHaveLength(1);
  });

  it('refuses a parquet that is not a MultiQC report, saying which columns it lacks', async () => {
    const path = `${server.database.dataDir}/not-multiqc.parquet`;
    await server.context.duckdb.withConnection((connection) =>
      connection.run(`COPY (SELECT 1 AS anchor, 'x' AS sample) TO '${path}' (FORMAT parquet)`),
    );
    const { upserted, summary } = await ingestSecondRun(await readFile(path));
    expect(upserted.status).toBe(400);
    expect(upserted.text).toContain('is not a MultiQC report');
    expect(upserted.text).toContain('plot_input_data');
    expect(summary.version).toBe(0);
  });

  it('leaves the other collections of the project readable', async () => {
    const preview = await call<{ total: number }>(server, 'GET', `/datacollections/${ids.metadataId}/preview`, {
      token: ada.access_token,
    });
    expect(preview.status).toBe(200);
    expect(preview.body.total).toBe(12);
  });
});

describeEachDialect('MultiQC reports of several runs', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let ids: Awaited<ReturnType<typeof ampliseqProject>>;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    ids = await ampliseqProject(server, ada.access_token);
    const status = await uploadFile(server, ada.access_token, ids.multiqcId, {
      run: 'run2',
      path: 'multiqc/multiqc_data/multiqc.parquet',
      content: REPORT,
    });
    expect(status).toBe(201);
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token: ada.access_token,
      json: { data_collection_id: ids.multiqcId },
    });
    expect(upserted.status, upserted.text).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('merges the runs: each sample row keeps its run, and a later run’s samples are named apart in plots', async () => {
    const summary = await call<Summary>(server, 'GET', `/datacollections/${ids.multiqcId}/multiqc`, {
      token: ada.access_token,
    });
    expect(summary.body.reports).toHaveLength(2);
    const runs = await call<{ rows: { _run_id: string }[]; total: number }>(
      server,
      'GET',
      `/datacollections/${ids.multiqcId}/preview?limit=100`,
      { token: ada.access_token },
    );
    expect(runs.body.total).toBe(72);
    expect(new Set(runs.body.rows.map((row) => row._run_id)).size).toBe(2);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: ids.projectId,
        title: 'Two runs',
        components: [
          {
            component_id: 'counts',
            type: 'multiqc',
            data_collection_id: ids.multiqcId,
            plot: 'fastqc_sequence_counts_plot',
          },
        ],
      },
    });
    const data = await call<{ components: Record<string, Data> }>(
      server,
      'POST',
      `/dashboards/${created.body.dashboard_id}/data`,
      {
        token: ada.access_token,
        json: {},
      },
    );
    const samples = data.body.components.counts?.samples ?? [];
    expect(samples).toHaveLength(48);
    expect(samples).toContain('SRR10070130_1');
    expect(samples).toContain('SRR10070130_1 (run2)');
  });

  it('makes an overview of the general statistics and each module’s main plot, all of which answer', async () => {
    const created = await call<{
      dashboard_id: string;
      components: { component_id: string; type: string; plot?: string }[];
    }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: ids.projectId, title: 'Overview', template: 'overview' },
    });
    expect(created.status, created.text).toBe(201);
    const plots = created.body.components.flatMap((component) =>
      component.type === 'multiqc' ? [component.plot] : [],
    );
    expect(plots).toEqual(['general_stats_table', 'cutadapt_filtered_reads_plot', 'fastqc_sequence_counts_plot']);
    expect(created.body.components.some((component) => component.type === 'interactive')).toBe(true);
    const data = await call<{ components: Record<string, Record<string, unknown>> }>(
      server,
      'POST',
      `/dashboards/${created.body.dashboard_id}/data`,
      { token: ada.access_token, json: {} },
    );
    expect(data.status, data.text).toBe(200);
    for (const [id, answer] of Object.entries(data.body.components)) expect(answer, id).not.toHaveProperty('error');
  });
});
