import { Loader } from '@mantine/core';
import { lazyComponent } from '../components/lazyPage.js';
import type { FigureViewProps } from './FigureView.js';

/**
 * A figure, with ECharts in a chunk of its own: the dashboard's first paint (its cards, filters
 * and tables) does not wait for the chart library. `FigureView.preload()` starts it early.
 */
export const FigureView = lazyComponent<FigureViewProps>(
  async () => (await import('./FigureView.js')).FigureView,
  <Loader size="sm" role="status" aria-label="Loading the chart" />,
);
