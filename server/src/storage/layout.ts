/**
 * Where things live in object storage. Vacuum walks these prefixes to find objects whose owner
 * (a data collection, a file record) no longer exists, so every writer must use them.
 */
export const TABLES_PREFIX = 'deltatables/';
export const UPLOADS_PREFIX = 'files/';

/** The Delta table of a data collection. */
export function tableRoot(dataCollectionId: string): string {
  return `${TABLES_PREFIX}${dataCollectionId}`;
}

/** The stored content of an uploaded file. */
export function uploadKey(fileId: string): string {
  return `${UPLOADS_PREFIX}${fileId}`;
}

/** Thumbnails of image collections' images (docs/dashboards.md "Images"), one folder per collection. */
export const THUMBNAILS_PREFIX = 'thumbnails/';

/** The folder of an image collection's thumbnails (with its trailing `/`): deleted with the collection. */
export function thumbnailsRoot(dataCollectionId: string): string {
  return `${THUMBNAILS_PREFIX}${dataCollectionId}/`;
}

/** The stored thumbnail (WebP) of one image of an image collection. */
export function thumbnailKey(dataCollectionId: string, imageId: string): string {
  return `${thumbnailsRoot(dataCollectionId)}${imageId}.webp`;
}
