import {
  type ChartTheme,
  type ColorAssignment,
  categoriesTurned,
  chartOption,
  type FigureComponent,
  type FigureData,
  fitCategories,
  fitLegend,
  legendRows,
} from '@service/common';
import { init } from '@service/common/echarts-registry';
import type { EChartsOption } from 'echarts';
import { use } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

// Only exports draw SVG: the renderer travels in this chunk, loaded from the menu, not with every chart.
use([SVGRenderer]);

export interface ImageSize {
  width: number;
  height: number;
}

/** The page's background in each scheme (a transparent image would lose its text on the other one). */
const BACKGROUND: Record<ChartTheme, string> = { light: '#ffffff', dark: '#242424' };

/** How a figure is drawn: its scheme and the dashboard's colour per value (as the cell draws it). */
export interface ImageLook {
  theme: ChartTheme;
  colors?: ColorAssignment | undefined;
}

/** The option the dashboard draws (common/'s, title inside), without animation: an image is one frame. */
function imageOption(
  component: FigureComponent,
  data: FigureData,
  { theme, colors }: ImageLook,
  { width }: ImageSize,
): EChartsOption {
  const option = chartOption(component, data, { theme, title: true, ...(colors ? { colors } : {}) });
  return {
    // The legend wraps and category labels turn at the image's width, as in the cell.
    ...fitCategories(fitLegend(option, legendRows(option, width)), categoriesTurned(option, width)),
    animation: false,
    backgroundColor: BACKGROUND[theme],
  };
}

/** The figure as a PNG at twice its size on screen (sharp on high-density displays and in print). */
export function figurePng(component: FigureComponent, data: FigureData, look: ImageLook, size: ImageSize): Blob {
  // A detached element: ECharts draws to its own canvas at the size given.
  const chart = init(document.createElement('div'), null, { renderer: 'canvas', ...size });
  try {
    chart.setOption(imageOption(component, data, look, size));
    const url = chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: BACKGROUND[look.theme] });
    return dataUrlBlob(url);
  } finally {
    chart.dispose();
  }
}

/** The figure as an SVG document, drawn by ECharts' SVG renderer without a DOM (its server-side mode). */
export function figureSvg(component: FigureComponent, data: FigureData, look: ImageLook, size: ImageSize): Blob {
  const chart = init(null, null, { renderer: 'svg', ssr: true, ...size });
  try {
    chart.setOption(imageOption(component, data, look, size));
    return new Blob([chart.renderToSVGString()], { type: 'image/svg+xml' });
  } finally {
    chart.dispose();
  }
}

/** The bytes of a base64 `data:` URL (no fetch: the app's CSP admits no `data:` connections). */
function dataUrlBlob(url: string): Blob {
  const comma = url.indexOf(',');
  const type = /^data:([^;,]+)/.exec(url)?.[1] ?? 'application/octet-stream';
  const binary = atob(url.slice(comma + 1));
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  return new Blob([bytes], { type });
}
