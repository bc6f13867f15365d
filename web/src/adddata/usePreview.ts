import { type DataFormat, filePreviewSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { previewable, previewPartOf } from './plan.js';

/** How many rows the preview shows. */
const PREVIEW_ROWS = 20;

/**
 * The server's reading of a file not yet added (`POST /projects/{id}/files/preview`), read again
 * whenever a choice changes; the last answer stays on screen while the next one comes.
 */
export function usePreview(
  projectId: string,
  file: File | undefined,
  format: DataFormat | null,
  readOptions: Record<string, unknown>,
) {
  const api = useApi();
  const options = JSON.stringify({
    ...(format === null ? {} : { format }),
    read_options: readOptions,
    limit: PREVIEW_ROWS,
  });
  return useQuery({
    queryKey: ['add-data-preview', projectId, file?.name, file?.size, file?.lastModified, options],
    queryFn: async ({ signal }) => {
      if (file === undefined || format === null) throw new Error('no file to preview');
      const form = new FormData();
      form.append('options', options);
      form.append('file', await previewPartOf(file, format), file.name);
      return api.request(`/projects/${projectId}/files/preview`, filePreviewSchema, { form, signal });
    },
    enabled: file !== undefined && format !== null && previewable(file, format),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
