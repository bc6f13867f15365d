import { lazyComponent } from '../components/lazyPage.js';
import type { AlertDialogProps } from './AlertDialog.js';

/** The alert dialog in a chunk of its own: loaded when a reader opens "Alert me…". */
export const AlertDialog = lazyComponent<AlertDialogProps>(
  async () => (await import('./AlertDialog.js')).AlertDialog,
  null,
);
