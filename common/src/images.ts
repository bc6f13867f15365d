import { z } from 'zod';
import { componentIdSchema, componentTabSchema, componentTitleSchema } from './dashboard-components.js';
import { columnNameSchema } from './queries.js';

/**
 * Image collections and the gallery component (docs/dashboards.md "Images"). A collection of
 * `type: image` reads each matching file as one image: its table has one row per image with the
 * columns below and the named groups of its pattern (`sample`, …), and a thumbnail of each image is
 * made on ingestion and kept in object storage. Files are read by their content, not their
 * extension: PNG, JPEG, WebP, GIF, TIFF, AVIF and SVG.
 */

/** The columns every image collection's table has, besides `_run_id` and the pattern's groups. */
export const IMAGE_COLUMNS = {
  /** Names the image in the image routes (the registered file's id). */
  id: 'image_id',
  /** The file's path inside its run. */
  path: 'path',
  width: 'width',
  height: 'height',
  /** `png`, `jpeg`, `webp`, `gif`, `tiff`, `svg`, … (as the content says, whatever the extension). */
  format: 'format',
  /** The file's size in bytes. */
  bytes: 'bytes',
  /** Why the file could not be read as an image (null when it could): such rows are left out of galleries. */
  error: 'error',
} as const;

/** The longest side of a thumbnail, in pixels (never enlarged). */
export const THUMBNAIL_SIZE = 320;
/** Images with more pixels than this are refused (a decompression bomb's header claims billions). */
export const MAX_IMAGE_PIXELS = 100_000_000;
/** Thumbnails a gallery page shows when `page_size` is not given. */
export const DEFAULT_GALLERY_PAGE = 24;

/** A grid of a collection's images, paged on the server and narrowed by the dashboard's filters. */
export const imageComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('image'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: z.string().min(1).max(64),
    /** Columns written under each thumbnail (the path when absent). */
    caption_columns: z.array(columnNameSchema).max(5).optional(),
    /** Thumbnails per page. */
    page_size: z.number().int().min(1).max(200).default(DEFAULT_GALLERY_PAGE),
  })
  .meta({ id: 'ImageComponent' });
export type ImageComponent = z.infer<typeof imageComponentSchema>;

/** An image's id as the routes take it: a registered file's id, nothing else (no path, no `..`). */
export const imageIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'an image id is the image_id column of an image collection (letters, digits, - and _)');

export const imageParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  component_id: componentIdSchema,
  image_id: imageIdSchema,
});

export const exportImageParamsSchema = z.strictObject({
  dashboard_id: z.string().min(1).max(64),
  component_id: componentIdSchema,
  image_id: imageIdSchema,
});

export const collectionImageParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  image_id: imageIdSchema,
});

/** `size=thumbnail` (a WebP of at most THUMBNAIL_SIZE pixels a side) or `full` (the file as it is). */
export const imageQuerySchema = z.strictObject({
  size: z.enum(['thumbnail', 'full']).default('full'),
  /** An embed token (the export route's image links). */
  token: z.string().min(1).max(200).optional(),
});
export type ImageQuery = z.infer<typeof imageQuerySchema>;

/** The content type an image is served with, by the format its content has. */
export const IMAGE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heif: 'image/heif',
  svg: 'image/svg+xml',
};
