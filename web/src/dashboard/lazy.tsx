import { Loader } from '@mantine/core';
import { lazyComponent } from '../components/lazyPage.js';
import type { FigureViewProps } from './FigureView.js';
import type { MultiqcViewProps } from './MultiqcView.js';

/**
 * A figure, with ECharts in a chunk of its own: the dashboard's first paint (its cards, filters
 * and tables) does not wait for the chart library. `FigureView.preload()` starts it early.
 */
export const FigureView = lazyComponent<FigureViewProps>(
  async () => (await import('./FigureView.js')).FigureView,
  <Loader size="sm" role="status" aria-label="Loading the chart" />,
);

/** A MultiQC plot, in the same chunk as the figures (it draws with the same ECharts). */
export const MultiqcView = lazyComponent<MultiqcViewProps>(
  async () => (await import('./MultiqcView.js')).MultiqcView,
  <Loader size="sm" role="status" aria-label="Loading the chart" />,
);
