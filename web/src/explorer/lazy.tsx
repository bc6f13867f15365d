import { Loader } from '@mantine/core';
import { lazyComponent } from '../components/lazyPage.js';

/**
 * The data explorer (its tables, tabs, drawer and their queries), a chunk of its own loaded once a
 * collection may be opened: `DataExplorer.preload()` starts it early.
 */
export const DataExplorer = lazyComponent(
  async () => (await import('./DataExplorer.js')).DataExplorer,
  <Loader aria-label="Loading the explorer" />,
);
