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
import { CanvasRenderer } from 'echarts/renderers';

/**
 * ECharts with only what common/src/charts draws with (violins are lines; areas and histograms
 * are lines and bars), so the dashboard's chart chunk carries no other chart type. The web app and
 * the server's export page both draw through this registration (`@service/common/echarts-registry`,
 * a module with a side effect: package.json lists it in `sideEffects`). The SVG renderer comes
 * with the web export's chunk (web/src/export/chart-image.ts), which alone draws SVG.
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
  CanvasRenderer,
]);

export { type EChartsType, init } from 'echarts/core';
