import { IMAGE_COLUMNS, type ImageComponent, type PreviewAnswer } from '@service/common';
import type { Narrowing } from '../filters/narrowing.js';
import type { TableSnapshot } from '../sql/columns.js';
import type { SharedScalars } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { UnsuitableData } from './data-problems.js';
import { onlyColumns, page } from './paging.js';

/**
 * A page of a gallery (docs/dashboards.md "Images"): the images of an image collection the
 * dashboard's filters leave, in path order, each with its id, path, size and caption columns.
 * Rows of files that could not be read as images (`error` set) are left out.
 */
export function galleryPage(
  reader: TableReader,
  source: TableSnapshot,
  component: ImageComponent,
  at: { skip: number; limit?: number | undefined },
  narrowing?: Narrowing,
  shared?: SharedScalars,
): Promise<PreviewAnswer> {
  const limit = at.limit ?? component.page_size;
  if (source.snapshot === null)
    return Promise.resolve({ version: null, columns: [], rows: [], total: 0, limit, skip: at.skip });
  const { id, path, width, height, error } = IMAGE_COLUMNS;
  for (const name of [id, path, error]) {
    if (!source.byName.has(name))
      throw new UnsuitableData('data_collection_id', `the collection has no ${name} column: not an image collection`);
  }
  const captions = (component.caption_columns ?? []).filter(
    (name) => !([id, path, width, height] as string[]).includes(name),
  );
  const missing = captions.find((name) => !source.byName.has(name));
  if (missing !== undefined) throw new UnsuitableData('caption_columns', `the collection has no column ${missing}`);
  const shown = onlyColumns(source, [id, path, width, height, ...captions]);
  const query = {
    limit,
    skip: at.skip,
    sort: [
      { column: path, direction: 'asc' as const },
      { column: id, direction: 'asc' as const },
    ],
    filters: [{ column: error, op: 'is_null' as const }],
  };
  // The filter on `error` reads a column the page does not show: it is resolved against the whole table.
  return page(reader, { ...shown, byName: source.byName }, query, narrowing, shared);
}
