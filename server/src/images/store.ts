import type { Readable } from 'node:stream';
import { thumbnailKey } from '../storage/layout.js';
import type { ObjectStorage } from '../storage/storage.js';

/** Thumbnails of image collections in object storage, local or S3 (docs/dashboards.md "Images"). */
export class ImageStore {
  constructor(private readonly storage: Pick<ObjectStorage, 'put' | 'get' | 'head' | 'getBuffer'>) {}

  async putThumbnail(dataCollectionId: string, imageId: string, webp: Buffer): Promise<void> {
    await this.storage.put(thumbnailKey(dataCollectionId, imageId), webp, { contentType: 'image/webp' });
  }

  /** The thumbnail's bytes as a stream, or null when there is none (the file was no image). */
  async thumbnail(dataCollectionId: string, imageId: string): Promise<{ stream: Readable; size: number } | null> {
    const key = thumbnailKey(dataCollectionId, imageId);
    const head = await this.storage.head(key);
    if (head === null) return null;
    return { stream: await this.storage.get(key), size: head.size };
  }

  /** The thumbnail's bytes (an exported page inlines them), or null. */
  async thumbnailBytes(dataCollectionId: string, imageId: string): Promise<Buffer | null> {
    const key = thumbnailKey(dataCollectionId, imageId);
    return (await this.storage.head(key)) === null ? null : this.storage.getBuffer(key);
  }
}
