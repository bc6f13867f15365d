import { type DataFormat, filePreviewSchema } from '@service/common';
import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { previewable, previewPartOf } from './plan.js';

/** How many rows the preview shows. */
const PREVIEW_ROWS = 20;

/** A file to preview, with the format it is read as (null: not known yet) and how. */
export interface PreviewedFile {
  file: File;
  format: DataFormat | null;
  readOptions: Record<string, unknown>;
}

/**
 * The server's reading of each file not yet added (`POST /projects/{id}/files/preview`, one
 * request per file, in parallel), read again whenever a choice changes; the last answers stay on
 * screen while the next ones come. Files with the same reading share their answer across screens.
 */
export function usePreviews(projectId: string, files: readonly PreviewedFile[]) {
  const api = useApi();
  return useQueries({
    queries: files.map(({ file, format, readOptions }) => {
      const options = JSON.stringify({
        ...(format === null ? {} : { format }),
        read_options: readOptions,
        limit: PREVIEW_ROWS,
      });
      return {
        queryKey: ['add-data-preview', projectId, file.name, file.size, file.lastModified, options],
        queryFn: async ({ signal }: { signal: AbortSignal }) => {
          if (format === null) throw new Error('no format to read the file with');
          const form = new FormData();
          form.append('options', options);
          form.append('file', await previewPartOf(file, format), file.name);
          return api.request(`/projects/${projectId}/files/preview`, filePreviewSchema, { form, signal });
        },
        enabled: format !== null && previewable(file, format),
        placeholderData: keepPreviousData,
        retry: false,
        staleTime: Number.POSITIVE_INFINITY,
      };
    }),
  });
}

export type Preview = ReturnType<typeof usePreviews>[number];
