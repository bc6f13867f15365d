import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isMissingObject, isSdkError, nameOf, S3StorageError, s3Failure, statusOf } from './s3-errors.js';
import {
  type AbandonedWrites,
  assertSafeKey,
  ObjectNotFound,
  type ObjectStorage,
  type StoredObject,
} from './storage.js';

export { S3StorageError } from './s3-errors.js';

export interface S3StorageOptions {
  bucket: string;
  /** Objects live under this `/`-separated prefix of the bucket; '' for the bucket's root. */
  prefix: string;
  /** null: AWS itself, by region. */
  endpoint: string | null;
  region: string;
  /** Both null: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** Attempts per request, first one included (standard retry mode, exponential backoff with jitter). */
  maxAttempts?: number;
  /** Gives up on a TCP connection that is not established within this time. */
  connectionTimeoutMs?: number;
  /** Gives up on a connection that stays idle (no bytes either way) this long. */
  socketTimeoutMs?: number;
  /** Bodies larger than one part go up as a multipart upload (S3's minimum part size is 5 MiB). */
  partSize?: number;
  /** Parts uploaded concurrently; each holds one part in memory. */
  queueSize?: number;
  /** Keys per ListObjectsV2 page (S3's maximum is 1000). */
  listPageSize?: number;
  /** Keys per DeleteObjects request (S3's maximum is 1000). */
  deleteBatchSize?: number;
}

const DEFAULTS = {
  maxAttempts: 5,
  connectionTimeoutMs: 5_000,
  socketTimeoutMs: 120_000,
  partSize: 8 * 1024 * 1024,
  queueSize: 2,
  listPageSize: 1000,
  deleteBatchSize: 1000,
} as const;

/**
 * Objects in an S3 bucket (AWS or any S3-compatible service), under an optional key prefix.
 * Writes are atomic for readers because S3 makes an object visible only when its PutObject or
 * CompleteMultipartUpload succeeds; a failed multipart upload is aborted so that no parts linger.
 */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3';
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly where: string;
  private readonly settings: Required<Pick<S3StorageOptions, keyof typeof DEFAULTS>>;
  /** Cleared when the service turns out not to implement DeleteObjects. */
  private multiDelete = true;

  constructor(options: S3StorageOptions) {
    const prefix = options.prefix.replace(/^\/+|\/+$/g, '');
    if (prefix !== '') assertSafeKey(prefix);
    if ((options.accessKeyId === null) !== (options.secretAccessKey === null)) {
      throw new Error('S3 storage needs both an access key id and a secret access key, or neither');
    }
    this.bucket = options.bucket;
    this.prefix = prefix === '' ? '' : `${prefix}/`;
    this.where = options.endpoint ?? `AWS S3 (${options.region})`;
    this.settings = {
      maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
      connectionTimeoutMs: options.connectionTimeoutMs ?? DEFAULTS.connectionTimeoutMs,
      socketTimeoutMs: options.socketTimeoutMs ?? DEFAULTS.socketTimeoutMs,
      partSize: options.partSize ?? DEFAULTS.partSize,
      queueSize: options.queueSize ?? DEFAULTS.queueSize,
      listPageSize: options.listPageSize ?? DEFAULTS.listPageSize,
      deleteBatchSize: options.deleteBatchSize ?? DEFAULTS.deleteBatchSize,
    };
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint ?? undefined,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId !== null && options.secretAccessKey !== null
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      retryMode: 'standard',
      maxAttempts: this.settings.maxAttempts,
      requestHandler: {
        connectionTimeout: this.settings.connectionTimeoutMs,
        socketTimeout: this.settings.socketTimeoutMs,
      },
      // Checksums only where the API demands them: by default the SDK adds CRC32 checksums to
      // every upload, sent as aws-chunked trailers for streams, which S3-compatible services such
      // as Swift's s3api reject. Upload parts are buffers, so SigV4's payload hash still covers them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    assertSafeKey(key);
    return this.prefix + key;
  }

  async put(
    key: string,
    body: Readable | Buffer | string,
    options: { contentType?: string } = {},
  ): Promise<{ size: number }> {
    const objectKey = this.objectKey(key);
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      const data = Buffer.from(body);
      await this.upload(objectKey, data, options.contentType);
      return { size: data.length };
    }

    let size = 0;
    async function* counted(source: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
        size += buffer.length;
        yield buffer;
      }
    }
    const stream = Readable.from(counted(body), { objectMode: false });
    try {
      await this.upload(objectKey, stream, options.contentType);
    } finally {
      // Stops reading the caller's stream when the upload gave up early (ends its generator).
      stream.destroy();
    }
    return { size };
  }

  private async upload(objectKey: string, body: Buffer | Readable, contentType: string | undefined): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: body, ContentType: contentType },
      partSize: this.settings.partSize,
      queueSize: this.settings.queueSize,
      // On any failure Upload aborts its multipart upload, so no parts are left behind (and billed).
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // Errors of the body stream are the caller's own; only the SDK's get our context.
      throw isSdkError(error) ? this.failure('upload', objectKey, error) : error;
    }
  }

  /** `move` changes nothing here: the file is uploaded, and stays for the caller to delete. */
  async putFile(key: string, localPath: string, _options?: { move?: boolean }): Promise<{ size: number }> {
    this.objectKey(key);
    const info = await stat(localPath);
    if (!info.isFile()) throw new Error(`not a file: ${localPath}`);
    return this.put(key, createReadStream(localPath));
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const objectKey = this.objectKey(key);
    if (range !== undefined && (!Number.isSafeInteger(range.start) || range.start < 0)) {
      throw new Error(`invalid range start: ${range.start}`);
    }
    if (range?.end !== undefined && (!Number.isSafeInteger(range.end) || range.end < range.start)) {
      throw new Error(`invalid range end: ${range.end}`);
    }
    try {
      const response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          Range: range === undefined ? undefined : `bytes=${range.start}-${range.end ?? ''}`,
        }),
      );
      if (!(response.Body instanceof Readable)) throw new Error('S3 GetObject returned no readable body');
      return response.Body;
    } catch (error) {
      // Like reading a file from beyond its end: S3 answers 416 when the range starts past the object.
      if (range !== undefined && statusOf(error) === 416) return Readable.from([]);
      throw this.mapError('GetObject', key, objectKey, error);
    }
  }

  async getBuffer(key: string): Promise<Buffer> {
    const objectKey = this.objectKey(key);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      if (response.Body === undefined) throw new Error('S3 GetObject returned no body');
      return Buffer.from(await response.Body.transformToByteArray());
    } catch (error) {
      throw this.mapError('GetObject', key, objectKey, error);
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    const objectKey = this.objectKey(key);
    try {
      const response = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return {
        key,
        size: response.ContentLength ?? 0,
        modifiedAt: response.LastModified ?? new Date(0),
        ...(response.ETag === undefined ? {} : { etag: response.ETag }),
      };
    } catch (error) {
      const mapped = this.mapError('HeadObject', key, objectKey, error);
      if (mapped instanceof ObjectNotFound) return null;
      throw mapped;
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let continuationToken: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.prefix + prefix,
            MaxKeys: this.settings.listPageSize,
            ContinuationToken: continuationToken,
          }),
        );
      } catch (error) {
        throw this.failure('ListObjectsV2', this.prefix + prefix, error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || !object.Key.startsWith(this.prefix)) continue;
        const key = object.Key.slice(this.prefix.length);
        // Keys this interface cannot address (folder markers such as `a/`, `a//b`) are not ours.
        if (!isSafeKey(key)) continue;
        yield { key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /**
   * Aborts the multipart uploads under our prefix started before `before`: an upload that fails
   * aborts itself, but one whose process was killed stays incomplete, its parts stored and billed.
   * Part sizes are not listed here, so `bytes` is 0.
   */
  async removeAbandonedWrites(before: Date, dryRun: boolean): Promise<AbandonedWrites> {
    let count = 0;
    let markers: { KeyMarker?: string | undefined; UploadIdMarker?: string | undefined } = {};
    for (;;) {
      let page: ListMultipartUploadsCommandOutput;
      try {
        page = await this.client.send(
          new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix, ...markers }),
        );
      } catch (error) {
        throw this.failure('ListMultipartUploads', this.prefix, error);
      }
      for (const upload of page.Uploads ?? []) {
        if (upload.Key === undefined || upload.UploadId === undefined) continue;
        if (upload.Initiated === undefined || upload.Initiated >= before) continue;
        if (!dryRun) {
          const abort = new AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: upload.Key,
            UploadId: upload.UploadId,
          });
          await this.client.send(abort).catch((error: unknown) => {
            if (!isMissingObject(error)) throw this.failure('AbortMultipartUpload', upload.Key ?? '', error);
          });
        }
        count += 1;
      }
      if (!page.IsTruncated) return { count, bytes: 0 };
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  async delete(keys: string[]): Promise<void> {
    const objectKeys = [...new Set(keys.map((key) => this.objectKey(key)))];
    for (let start = 0; start < objectKeys.length; start += this.settings.deleteBatchSize) {
      const batch = objectKeys.slice(start, start + this.settings.deleteBatchSize);
      if (this.multiDelete) {
        try {
          await this.deleteBatch(batch);
          continue;
        } catch (error) {
          if (statusOf(error) !== 501 && nameOf(error) !== 'NotImplemented') {
            throw this.failure('DeleteObjects', batch[0] ?? '', error);
          }
          this.multiDelete = false;
        }
      }
      await this.deleteEach(batch);
    }
  }

  private async deleteBatch(objectKeys: string[]): Promise<void> {
    const command = new DeleteObjectsCommand({
      Bucket: this.bucket,
      Delete: { Objects: objectKeys.map((Key) => ({ Key })), Quiet: true },
    });
    // S3 (and Swift's s3api) long required Content-MD5 on DeleteObjects; the SDK now sends a CRC32
    // checksum instead, which services that still insist on Content-MD5 reject. Sending both is
    // accepted everywhere.
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers?: Record<string, string>; body?: unknown };
        if (request.headers !== undefined && (typeof request.body === 'string' || request.body instanceof Uint8Array)) {
          request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
        }
        return next(args);
      },
      { step: 'build', name: 'serviceDeleteObjectsContentMd5' },
    );
    const response = await this.client.send(command);
    const errors = (response.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey');
    if (errors.length > 0) {
      const first = errors[0]!;
      throw new S3StorageError(
        `S3 DeleteObjects in s3://${this.bucket} failed for ${errors.length} key(s), first ${first.Key}: ${first.Code} ${first.Message ?? ''}`.trim(),
        { cause: errors },
      );
    }
  }

  private async deleteEach(objectKeys: string[]): Promise<void> {
    const concurrency = 8;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < objectKeys.length) {
        const objectKey = objectKeys[next++]!;
        try {
          await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
        } catch (error) {
          if (statusOf(error) === 404) continue;
          throw this.failure('DeleteObject', objectKey, error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, objectKeys.length) }, worker));
  }

  localPath(): null {
    return null;
  }

  private mapError(operation: string, key: string, objectKey: string, error: unknown): Error {
    if (isMissingObject(error)) return new ObjectNotFound(key);
    return this.failure(operation, objectKey, error);
  }

  private failure(operation: string, objectKey: string, error: unknown): Error {
    return s3Failure(`${operation} s3://${this.bucket}/${objectKey}`, this.where, error);
  }
}

function isSafeKey(key: string): boolean {
  try {
    assertSafeKey(key);
    return true;
  } catch {
    return false;
  }
}
