import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chartOption, type FigureComponent, type FigureData } from '@service/common';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The charts' ECharts registration (common/src/charts/echarts-registry.ts) as a bundler builds it
 * for the web app and the export page (build/export-page.mjs): tree-shaken by ECharts' own
 * `sideEffects` list, which drops side effects `echarts/core` has when Node runs it whole. Bundled
 * here the same way, with the SVG renderer beside it so that a test can read what it draws.
 */
const REGISTRY = fileURLToPath(new URL('../../../common/src/charts/echarts-registry.ts', import.meta.url));

type Draw = (option: object) => string;
let folder = '';
let draw: Draw;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'echarts-bundle-'));
  const entry = `
    import { init } from ${JSON.stringify(REGISTRY)};
    import { use } from 'echarts/core';
    import { SVGRenderer } from 'echarts/renderers';
    use([SVGRenderer]);
    export function draw(option) {
      const chart = init(null, null, { renderer: 'svg', ssr: true, width: 600, height: 400, locale: 'EN' });
      try {
        chart.setOption({ ...option, animation: false });
        return chart.renderToSVGString();
      } finally {
        chart.dispose();
      }
    }`;
  const bundled = await build({
    stdin: { contents: entry, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    conditions: ['source'],
    write: false,
    logLevel: 'silent',
  });
  const file = join(folder, 'charts.mjs');
  await writeFile(file, bundled.outputFiles[0]?.text ?? '');
  ({ draw } = (await import(pathToFileURL(file).href)) as { draw: Draw });
});

afterAll(async () => {
  if (folder !== '') await rm(folder, { recursive: true, force: true });
});

describe('the charts’ ECharts, bundled as the app and the export page bundle it', () => {
  it('carries out `labelLayout`: of names that would overlap, only some are drawn', () => {
    // Twelve pieces of 30° each, named at length: written along their radius, they cross near the centre.
    const names = Array.from({ length: 12 }, (_, at) => `a rather long name of a genus number ${at}`);
    const sunburst: FigureComponent = {
      type: 'figure',
      component_id: 's',
      data_collection_id: 'dc',
      chart: 'sunburst',
      levels: ['genus'],
    };
    const data: FigureData = {
      columns: [],
      rows: [],
      sampled: false,
      total_rows: 130,
      nodes: names.map((name, at) => ({ path: [name], value: at === 0 ? 20 : 10 })),
      folded: [],
    };
    const svg = draw(chartOption(sunburst, data, { theme: 'light' }));
    const drawn = names.filter((name) => svg.includes(`>${name}</text>`));
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(names.length);
    // The largest piece keeps its name.
    expect(drawn).toContain(names[0]);
  });

  it('draws the names of a sankey’s small nodes stacked in a column only where they do not overlap', () => {
    // Forty genera under one phylum: a column of nodes a few pixels high each, the largest first.
    const genera = Array.from({ length: 40 }, (_, at) => `Genus${at}`);
    const sankey: FigureComponent = {
      type: 'figure',
      component_id: 'k',
      data_collection_id: 'dc',
      chart: 'sankey',
      levels: ['phylum', 'genus'],
    };
    const links = genera.map((genus, at) => ({ level: 0, from: 'Firmicutes', to: genus, value: at === 0 ? 100 : 10 }));
    const svg = draw(
      chartOption(sankey, { columns: [], rows: [], sampled: false, total_rows: 490, links }, { theme: 'light' }),
    );
    // A node's name carries a zero-width space per level (names apart per level).
    const drawn = genera.filter((genus) => svg.includes(`>${genus}\u200b</text>`));
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(genera.length);
    expect(drawn).toContain('Genus0');
  });
});
