import {
  BarChart,
  BoxplotChart,
  FunnelChart,
  HeatmapChart,
  LineChart,
  MapChart,
  PieChart,
  SankeyChart,
  ScatterChart,
  SunburstChart,
  TreeChart,
  TreemapChart,
} from 'echarts/charts';
import {
  AriaComponent,
  BrushComponent,
  DatasetComponent,
  DataZoomComponent,
  GeoComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { use } from 'echarts/core';
import { LabelLayout } from 'echarts/features';
import { CanvasRenderer } from 'echarts/renderers';

/**
 * ECharts with only what common/src/charts draws with (violins are lines; areas and histograms
 * are lines and bars), so the dashboard's chart chunk carries no other chart type. The web app and
 * the server's export page both draw through this registration (`@service/common/echarts-registry`,
 * a module with a side effect: package.json lists it in `sideEffects`). The SVG renderer comes
 * with the web export's chunk (web/src/export/chart-image.ts), which alone draws SVG.
 *
 * `LabelLayout` carries out the options' `labelLayout` (names that would overlap are hidden).
 * `echarts/core` installs it as a side effect of its module, which bundlers drop: ECharts'
 * `sideEffects` list leaves that module out, so in the web app and the export page the option was
 * read and ignored (server/test/export/echarts-bundle.test.ts bundles the registry as they do).
 */
use([
  ScatterChart,
  LineChart,
  BarChart,
  PieChart,
  BoxplotChart,
  HeatmapChart,
  SunburstChart,
  TreemapChart,
  SankeyChart,
  TreeChart,
  FunnelChart,
  MapChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  DataZoomComponent,
  BrushComponent,
  GeoComponent,
  TitleComponent,
  DatasetComponent,
  VisualMapComponent,
  AriaComponent,
  LabelLayout,
  CanvasRenderer,
]);

export { type EChartsType, init } from 'echarts/core';
