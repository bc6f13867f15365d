import { MantineProvider } from '@mantine/core';
import type { DashboardFilterValue, FigureComponent, FigureData } from '@service/common';
import { getInstanceByDom } from 'echarts/core';
import { createRoot, type Root } from 'react-dom/client';
import { FigureView } from '../../src/dashboard/FigureView.js';

/**
 * A page with one FigureView (web/test/e2e-figure-view.test.ts): the test mounts a figure, reads
 * the filters it emitted, and asks ECharts where a data point is drawn to click or brush there.
 */
interface Mount {
  component: FigureComponent;
  data: FigureData;
  filterValue?: DashboardFilterValue | null;
  /** 'auto' follows the browser's preference, as the app does. */
  scheme?: 'light' | 'dark' | 'auto';
  /** Room above the figure (px): enough puts it out of sight until scrolled to. */
  below?: number;
}

let root: Root | null = null;
const filters: (DashboardFilterValue | null)[] = [];

function mount({ component, data, filterValue, scheme = 'light', below = 0 }: Mount): void {
  const host = document.getElementById('root');
  if (host === null) throw new Error('no #root');
  root ??= createRoot(host);
  root.render(
    <MantineProvider defaultColorScheme="auto" forceColorScheme={scheme === 'auto' ? undefined : scheme}>
      <div style={{ height: below }} />
      <div id="cell" style={{ width: 480, height: 320 }}>
        <FigureView
          component={component}
          data={data}
          filterValue={filterValue}
          onFilter={(value) => filters.push(value)}
        />
      </div>
    </MantineProvider>,
  );
}

function unmount(): void {
  root?.unmount();
  root = null;
}

/** Where ECharts draws a value of the first grid, in page pixels. */
function pixelOf(value: [unknown, unknown]): [number, number] {
  const element = document.querySelector<HTMLElement>('[data-chart-items]');
  const chart = element ? getInstanceByDom(element) : undefined;
  if (element === null || chart === undefined) throw new Error('no chart');
  const [x, y] = chart.convertToPixel({ gridIndex: 0 }, value as [number, number]) as number[];
  const box = element.getBoundingClientRect();
  return [box.left + (x ?? 0), box.top + (y ?? 0)];
}

/** How many data items the chart draws, in its series and datasets (what ECharts holds, not the data given). */
function drawnPoints(): number {
  const element = document.querySelector<HTMLElement>('[data-chart-items]');
  const chart = element ? getInstanceByDom(element) : undefined;
  const option = chart?.getOption() as
    | { series?: { data?: unknown[] }[]; dataset?: { source?: unknown[] }[] }
    | undefined;
  const inSeries = (option?.series ?? []).reduce((sum, series) => sum + (series.data?.length ?? 0), 0);
  return (option?.dataset ?? []).reduce((sum, dataset) => sum + (dataset.source?.length ?? 0), inSeries);
}

/** The text colour of the option ECharts is drawing (light and dark schemes differ). */
function textColor(): unknown {
  const element = document.querySelector<HTMLElement>('[data-chart-items]');
  const chart = element ? getInstanceByDom(element) : undefined;
  const option = chart?.getOption() as { textStyle?: { color?: unknown } } | undefined;
  return option?.textStyle?.color;
}

Object.assign(window, { harness: { mount, unmount, filters, pixelOf, textColor, drawnPoints } });
