import type { QueryClient } from '@tanstack/react-query';
import type { ApiClient } from './api/client.js';
import { capabilitiesQuery } from './auth/session.js';
import { type Address, projectIdOf } from './boot/first-screen.js';
import { pageOf } from './components/page-param.js';
import { previewQuery } from './explorer/queries.js';
import { readExplorerState } from './explorer/url-state.js';
import { dataCollectionQuery, projectQuery } from './pages/project-queries.js';

/**
 * Starts the first screen's queries as soon as the app runs, before its first render, as the
 * screens themselves will make them (the same query options). They adopt the boot script's
 * answers (web/src/boot/), which are usually in by then, so that the first render shows the page
 * instead of a loader for each of them in turn. Nothing waits for them: an answer still on its way
 * shows as a loader, as before. Signed out, only the capabilities, as the boot script.
 */
export function prefetchFirstScreen(queryClient: QueryClient, api: ApiClient, address: Address): void {
  void queryClient.prefetchQuery(capabilitiesQuery(api));
  const projectId = projectIdOf(address.pathname);
  if (api.tokens.get() === null || projectId === null) return;
  void queryClient.prefetchQuery(projectQuery(api, projectId));
  const params = new URLSearchParams(address.search);
  const collectionId = params.get('dc');
  if (collectionId === null) return;
  void queryClient.prefetchQuery(dataCollectionQuery(api, collectionId));
  const state = readExplorerState(params);
  if (state.view === 'preview') {
    void queryClient.prefetchQuery(previewQuery(api, collectionId, { page: pageOf(params), ...state }));
  }
}
