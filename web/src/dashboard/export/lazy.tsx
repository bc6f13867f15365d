import { lazyComponent } from '../../components/lazyPage.js';
import type { EmbedDialogProps } from './EmbedDialog.js';

/** The embed dialog in a chunk of its own: only owners and editors who open it load it. */
export const EmbedDialog = lazyComponent<EmbedDialogProps>(
  async () => (await import('./EmbedDialog.js')).EmbedDialog,
  null,
);
