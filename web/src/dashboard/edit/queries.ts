import {
  type DashboardComponent,
  dashboardDataEnvelopeSchema,
  dataCollectionListSchema,
  tableSchemaAnswerSchema,
  workflowListSchema,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/client.js';
import { dashboardDataPath, projectWorkflowsGet } from '../../api/wire.js';
import { useApi } from '../../auth/session.js';

export interface CollectionChoice {
  value: string;
  /** `workflow / tag`, as the project page names it. */
  label: string;
}

/** The data collections of a project, every workflow's, for the builder's collection picker. */
export function useProjectCollections(projectId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['project-collections', projectId],
    queryFn: async ({ signal }): Promise<CollectionChoice[]> => {
      const workflows = await api.get(projectWorkflowsGet(projectId), workflowListSchema, signal);
      const lists = await Promise.all(
        workflows.items.map(async (workflow) => {
          const collections = await api.request(
            `/workflows/${workflow.workflow_id}/datacollections`,
            dataCollectionListSchema,
            { query: { limit: 200 }, signal },
          );
          return collections.items.map((collection) => ({
            value: collection.data_collection_id,
            label: `${workflow.name} / ${collection.tag}`,
          }));
        }),
      );
      return lists.flat();
    },
  });
}

/** The columns of a collection's latest version, with their types (what the builder offers). */
export function useCollectionColumns(collectionId: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: ['schema', collectionId],
    enabled: collectionId !== undefined && collectionId !== '',
    queryFn: ({ signal }) =>
      api.request(`/datacollections/${collectionId}/schema`, tableSchemaAnswerSchema, { signal }),
  });
}

/**
 * Data for components not saved yet (new or changed in the editor), computed by the data route as
 * if they were in the dashboard (`preview`). `unsupported` when the server does not take previews.
 */
export function usePreviewData(dashboardId: string, components: readonly DashboardComponent[]) {
  const api = useApi();
  const body = { filters: [], preview: components };
  return useQuery({
    queryKey: ['dashboard-preview', dashboardId, JSON.stringify(components)],
    enabled: components.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: async ({ signal }) => {
      try {
        const answer = await api.request(dashboardDataPath(dashboardId), dashboardDataEnvelopeSchema, {
          method: 'POST',
          json: body,
          reads: true,
          signal,
        });
        return { unsupported: false, components: answer.components };
      } catch (error) {
        // An older server refuses the unknown `preview` field: the data shows after saving.
        if (
          isApiError(error, 'validation_failed') &&
          error.fieldErrors.some((field) => field.path.includes('preview'))
        ) {
          return { unsupported: true, components: {} };
        }
        throw error;
      }
    },
  });
}
