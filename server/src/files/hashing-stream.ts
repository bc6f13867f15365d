import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DomainError } from '../errors.js';

/**
 * Passes bytes through while computing their SHA-256 and size, and fails the stream as soon as
 * more than `maxBytes` went by, so an oversized upload never lands in storage.
 */
export class HashingStream extends Transform {
  private readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(
        new DomainError(
          'payload_too_large',
          `the file is larger than the ${this.maxBytes}-byte upload limit: split it into smaller files (one collection takes many), or ask an administrator to raise SERVICE_UPLOAD_MAX_BYTES`,
        ),
      );
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
