// The web app's own registration of ECharts parts: an exported chart is drawn with exactly what the
// dashboard draws with, and nothing else is bundled.
import { init } from '@service/common/echarts-registry';
import { categoriesTurned, fitCategories, fitLegend, legendRows } from '@service/common/legend-fit';
import { registerWorldMap } from '@service/common/world-map';
import type { EChartsOption } from 'echarts';

/**
 * The script of an exported figure's page (server/src/export/page.ts), built into one IIFE by
 * build/export-page.mjs and inlined into the page. It draws with the canvas renderer: that styles
 * through the CSSOM, which the page's CSP allows, where the SVG renderer would write style
 * attributes the CSP refuses.
 */
const element = document.getElementById('chart');
const source = document.getElementById('export-spec');
// A map's page carries the world's countries beside the option (docs/dashboards.md "Maps").
const geo = document.getElementById('export-geo');
if (geo) registerWorldMap(JSON.parse(geo.textContent ?? '{}'));
if (element && source) {
  const option = JSON.parse(source.textContent ?? '{}') as EChartsOption;
  const chart = init(element, null, { renderer: 'canvas' });
  // Tests and the benchmark wait for this mark: the chart is on the canvas, so many ms after navigation began.
  chart.on('finished', () => {
    const root = document.documentElement.dataset;
    if (root.drawn === 'true') return;
    root.drawnMs = performance.now().toFixed(1);
    root.drawn = 'true';
  });
  // Drawn at once: an embedded or printed chart has no one to watch it grow in. Its legend wraps
  // onto the lines the page's width needs and its category labels turn where they would run
  // together (common/src/charts/legend-fit.ts).
  const fitted = (width: number) => ({ rows: legendRows(option, width), turned: categoriesTurned(option, width) });
  const drawn = (fit: { rows: number; turned: boolean }) => ({
    ...fitCategories(fitLegend(option, fit.rows), fit.turned),
    animation: false,
  });
  let fit = fitted(element.clientWidth);
  chart.setOption(drawn(fit));
  // The page lives in someone else's iframe: follow its size.
  new ResizeObserver(() => {
    const now = fitted(element.clientWidth);
    if (now.rows !== fit.rows || now.turned !== fit.turned) chart.setOption(drawn(now), { notMerge: true });
    fit = now;
    chart.resize();
  }).observe(element);
}
