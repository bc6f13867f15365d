import { dataCollectionSchema, projectSchema } from '@service/common';
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../api/client.js';
import { JUST_FETCHED_MS } from '../api/freshness.js';
import { dataCollectionGet, projectGet } from '../api/wire.js';

/** A project, as its page shows it; started before the first render when the app opens on it. */
export const projectQuery = (api: ApiClient, projectId: string) =>
  queryOptions({
    queryKey: ['project', projectId],
    queryFn: ({ signal }) => api.get(projectGet(projectId), projectSchema, signal),
    staleTime: JUST_FETCHED_MS,
  });

/** The collection the project page's explorer shows (`?dc=`). */
export const dataCollectionQuery = (api: ApiClient, collectionId: string) =>
  queryOptions({
    queryKey: ['datacollection', collectionId],
    queryFn: ({ signal }) => api.get(dataCollectionGet(collectionId), dataCollectionSchema, signal),
    staleTime: JUST_FETCHED_MS,
  });
