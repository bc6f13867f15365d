import { MAX_IMAGE_PIXELS, THUMBNAIL_SIZE } from '@service/common';
import sharp from 'sharp';

/** What ingestion learns of one image file: its size and format and its thumbnail, or why it is no image. */
export type ProbedImage =
  | { ok: true; width: number; height: number; format: string; thumbnail: Buffer }
  | { ok: false; error: string };

/** Pixels an image may have (its header says): more is refused before anything is decoded. */
export function pixelProblem(width: number, height: number, limit = MAX_IMAGE_PIXELS): string | null {
  const pixels = width * height;
  if (pixels <= limit) return null;
  return `the image is ${width}×${height} pixels (${pixels.toLocaleString('en')}), more than the ${limit.toLocaleString('en')} allowed`;
}

/**
 * Reads an image's header (width, height and format as its content says, whatever its name) and
 * makes its thumbnail: a WebP of at most THUMBNAIL_SIZE pixels a side, turned as its EXIF says.
 * A header claiming more than MAX_IMAGE_PIXELS pixels (a decompression bomb) is refused before
 * decoding, and sharp's own `limitInputPixels` stops any that gets past. SVG is rendered by
 * librsvg, which runs no script and fetches nothing.
 */
export async function probeImage(localPath: string): Promise<ProbedImage> {
  try {
    const options = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' as const, pages: 1 };
    const metadata = await sharp(localPath, options).metadata();
    const { width, height, format } = metadata;
    if (width === undefined || height === undefined) return { ok: false, error: 'the image has no size' };
    const tooBig = pixelProblem(width, height);
    if (tooBig !== null) return { ok: false, error: tooBig };
    const thumbnail = await sharp(localPath, options)
      .rotate()
      .resize({ width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    return { ok: true, width, height, format: String(format), thumbnail };
  } catch (error) {
    return { ok: false, error: reasonOf(error) };
  }
}

/** The format an image's content has (`png`, `svg`…), or null when it is no image sharp reads. */
export async function formatOf(localPath: string): Promise<string | null> {
  try {
    const { format } = await sharp(localPath, { limitInputPixels: false }).metadata();
    return format === undefined ? null : String(format);
  } catch {
    return null;
  }
}

/** Why an image is too big to serve (its header's pixels past MAX_IMAGE_PIXELS), or null. */
export async function pixelsOf(localPath: string): Promise<string | null> {
  const { width, height } = await sharp(localPath, { limitInputPixels: false }).metadata();
  return width === undefined || height === undefined ? null : pixelProblem(width, height);
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message))
    return `the image has more than the ${MAX_IMAGE_PIXELS.toLocaleString('en')} pixels allowed`;
  if (/unsupported image format/i.test(message)) return 'not an image (PNG, JPEG, WebP, GIF, TIFF, AVIF or SVG)';
  return `the image cannot be read: ${message.split('\n')[0]?.slice(0, 200) ?? 'unreadable'}`;
}
