import { randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import { S3Storage, type S3StorageOptions } from '../../server/src/storage/s3.js';
import './s3-context.js';

/** Whether the global setup found an S3 service; S3 suites skip when it did not. */
export function s3Available(): boolean {
  return inject('s3Endpoint') !== '';
}

/** Client settings for the test service, in the shape `config.s3` has. */
export function testS3Settings(): Pick<
  S3StorageOptions,
  'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey' | 'forcePathStyle'
> {
  const endpoint = inject('s3Endpoint');
  if (endpoint === '') throw new Error('no S3 service for tests (see the [s3] line of the test output)');
  const { accessKeyId, secretAccessKey } = inject('s3Credentials');
  return { endpoint, region: 'us-east-1', accessKeyId, secretAccessKey, forcePathStyle: true };
}

export interface TestBucket {
  readonly bucket: string;
  /** A plain client for looking behind the storage's back. */
  readonly client: S3Client;
  /** An S3Storage on this bucket; `options` overrides its settings (prefix '' unless given). */
  storage(options?: Partial<S3StorageOptions>): S3Storage;
  /** Every key in the bucket, prefix included. */
  keys(): Promise<string[]>;
  /** Multipart uploads started and neither completed nor aborted, as `key` strings. */
  pendingUploads(): Promise<string[]>;
  /** Aborts pending uploads, deletes every object and the bucket. Idempotent. */
  drop(): Promise<void>;
}

/** Creates a fresh, uniquely named bucket on the test service. */
export async function createTestBucket(): Promise<TestBucket> {
  const settings = testS3Settings();
  const bucket = `t-${randomBytes(8).toString('hex')}`;
  const client = new S3Client({
    endpoint: settings.endpoint ?? undefined,
    region: settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId ?? '', secretAccessKey: settings.secretAccessKey ?? '' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));

  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key !== undefined) found.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return found;
  };
  const uploads = async () => {
    const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    return page.Uploads ?? [];
  };
  const storages: S3Storage[] = [];

  let dropped: Promise<void> | undefined;
  return {
    bucket,
    client,
    storage(options = {}) {
      const storage = new S3Storage({ ...settings, bucket, prefix: '', ...options });
      storages.push(storage);
      return storage;
    },
    keys,
    async pendingUploads() {
      return (await uploads()).map((upload) => upload.Key ?? '');
    },
    drop() {
      dropped ??= (async () => {
        for (const upload of await uploads()) {
          await client.send(
            new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
        }
        for (const key of await keys()) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
        for (const storage of storages) storage.client.destroy();
        client.destroy();
      })();
      return dropped;
    },
  };
}
