import { IMAGE_COLUMNS } from '@service/common';
import type { FilesTable } from '../db/tables.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { probeImage } from './probe.js';
import type { ImageStore } from './store.js';

/**
 * One image file as the one row an image collection's table holds of it (its id, path, size,
 * format and, when it is no image, why), its thumbnail stored on the way. A file that cannot be
 * read as an image is not refused: its row says why (`error`), and galleries leave it out.
 */
export async function imageRelation(
  store: Pick<ImageStore, 'putThumbnail'>,
  dataCollectionId: string,
  localPath: string,
  file: Pick<FilesTable, 'id' | 'path' | 'size'>,
): Promise<string> {
  const probed = await probeImage(localPath);
  if (probed.ok) await store.putThumbnail(dataCollectionId, file.id, probed.thumbnail);
  const { id, path, width, height, format, bytes, error } = IMAGE_COLUMNS;
  const text = (value: string | null) => (value === null ? 'NULL' : quoteString(value));
  const integer = (value: number | null) => (value === null ? 'NULL' : String(Math.trunc(value)));
  const values = [
    `${quoteString(file.id)}::VARCHAR AS ${quoteIdentifier(id)}`,
    `${quoteString(file.path)}::VARCHAR AS ${quoteIdentifier(path)}`,
    `${integer(probed.ok ? probed.width : null)}::BIGINT AS ${quoteIdentifier(width)}`,
    `${integer(probed.ok ? probed.height : null)}::BIGINT AS ${quoteIdentifier(height)}`,
    `${text(probed.ok ? probed.format : null)}::VARCHAR AS ${quoteIdentifier(format)}`,
    `${integer(file.size)}::BIGINT AS ${quoteIdentifier(bytes)}`,
    `${text(probed.ok ? null : probed.error)}::VARCHAR AS ${quoteIdentifier(error)}`,
  ];
  return `(SELECT ${values.join(', ')})`;
}
