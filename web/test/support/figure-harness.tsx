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
}

let root: Root | null = null;
const filters: (DashboardFilterValue | null)[] = [];

function mount({ component, data, filterValue, scheme = 'light' }: Mount): void {
  const host = document.getElementById('root');
  if (host === null) throw new Error('no #root');
  root ??= createRoot(host);
  root.render(
    <MantineProvider defaultColorScheme="auto" forceColorScheme={scheme === 'auto' ? undefined : scheme}>
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

/** The text colour of the option ECharts is drawing (light and dark schemes differ). */
function textColor(): unknown {
  const element = document.querySelector<HTMLElement>('[data-chart-items]');
  const chart = element ? getInstanceByDom(element) : undefined;
  const option = chart?.getOption() as { textStyle?: { color?: unknown } } | undefined;
  return option?.textStyle?.color;
}

Object.assign(window, { harness: { mount, unmount, filters, pixelOf, textColor } });
