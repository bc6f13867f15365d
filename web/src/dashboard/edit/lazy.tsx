import { Loader } from '@mantine/core';
import { lazyComponent } from '../../components/lazyPage.js';
import type { DashboardEditor as Editor } from './DashboardEditor.js';

/**
 * Edit mode, with react-grid-layout and the builder's forms in a chunk of their own: readers of a
 * dashboard never download them.
 */
export const DashboardEditor = lazyComponent<Parameters<typeof Editor>[0]>(
  async () => (await import('./DashboardEditor.js')).DashboardEditor,
  <Loader aria-label="Opening the editor" />,
);
