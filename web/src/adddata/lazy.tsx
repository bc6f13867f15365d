import { Loader } from '@mantine/core';
import { lazyComponent } from '../components/lazyPage.js';

/** Add data (files, preview, Create), a chunk of its own: only editors who open it download it. */
export const AddData = lazyComponent(
  async () => (await import('./AddData.js')).AddData,
  <Loader aria-label="Loading Add data" />,
);
