import { Alert } from '@mantine/core';
import type { DataCollection } from '@service/common';
import { errorMessage } from '../api/client.js';
import type { ExplorerActions, ExplorerState } from './url-state.js';

/** What every view of the explorer gets: the collection, the URL-backed state and its setters. */
export interface ViewProps {
  collection: DataCollection;
  state: ExplorerState;
  actions: ExplorerActions;
}

/** A view's query failed: what was being loaded, and why it failed. */
export function Failure({ title, error }: { title: string; error: unknown }) {
  return (
    <Alert color="red" role="alert" title={title}>
      {errorMessage(error)}
    </Alert>
  );
}
