import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../config/config.js';
import { pathMismatchMessage } from '../datacollections/path-fit.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import type { Database } from '../db/database.js';
import type { FilesTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { realPathInsideRoots } from '../locations/allowed-roots.js';
import { compilePattern } from '../locations/patterns.js';
import { assertRelativePath } from '../locations/relative-path.js';
import type { Actor } from '../policy/actor.js';
import { uploadKey } from '../storage/layout.js';
import type { ObjectStorage } from '../storage/storage.js';
import { fileRows } from '../tables/files.js';
import { registerRun } from '../tables/runs.js';
import { presentFile } from '../workflows/presenters.js';
import type { WorkflowsService } from '../workflows/service.js';
import { contentTypeOf } from './content-type.js';
import { HashingStream } from './hashing-stream.js';

export interface Upload {
  runTag: string;
  path: string;
  content: Readable;
}

/** Files of runs: uploads into storage, registration, and reading them back. */
export class FilesService {
  constructor(
    private readonly database: Database,
    private readonly config: Pick<Config, 'uploadMaxBytes'> & { ingestion: Pick<Config['ingestion'], 'allowedRoots'> },
    private readonly storage: ObjectStorage,
    private readonly workflows: WorkflowsService,
    private readonly dataCollections: DataCollectionsService,
  ) {}

  /**
   * Streams an upload into storage (hashing it on the way, never holding it whole), then registers
   * it as a file of the run. The same run and path again replace the file. A failed or cut-off
   * upload registers nothing and leaves nothing in storage.
   */
  async upload(actor: Actor, dataCollectionId: string, upload: Upload) {
    const { row: collection } = await this.dataCollections.access(actor, dataCollectionId, 'resource.edit');
    assertRelativePath(upload.path, 'path');
    if (!compilePattern(collection.pattern).test(upload.path)) {
      upload.content.resume();
      const fit = await this.dataCollections.fitOf(collection, upload.path);
      throw new DomainError('validation_failed', pathMismatchMessage(fit), [
        { path: 'path', message: `${upload.path} does not match ${collection.pattern}` },
      ]);
    }
    const fileId = uuidv7();
    const key = uploadKey(fileId);
    const hashing = new HashingStream(this.config.uploadMaxBytes);
    const stored = this.storage.put(key, hashing);
    try {
      await Promise.all([pipeline(upload.content, hashing), stored]);
    } catch (error) {
      await stored.catch(() => undefined);
      await this.storage.delete([key]);
      throw error;
    }

    try {
      const replaced = await this.register(collection.workflow_id, upload, {
        id: fileId,
        size: hashing.size,
        sha256: hashing.digest(),
        storageKey: key,
      });
      if (replaced) await this.storage.delete([replaced]);
    } catch (error) {
      await this.storage.delete([key]);
      throw error;
    }
    const row = await fileRows.findByRunTag(this.database.db, collection.workflow_id, upload.runTag, upload.path);
    return presentFile(row);
  }

  /** Records the file (and its run, if new); answers the storage key of a file it replaced. */
  private async register(
    workflowId: string,
    upload: Upload,
    content: { id: string; size: number; sha256: string; storageKey: string },
  ): Promise<string | null> {
    return this.database.db.transaction().execute(async (trx) => {
      const now = isoNow();
      const run = await registerRun(trx, workflowId, upload.runTag, null);
      const previous = await fileRows.findInRun(trx, run.id, upload.path);
      const values = {
        size: content.size,
        sha256: content.sha256,
        modified_at: now,
        content_type: contentTypeOf(upload.path),
        origin: 'upload' as const,
        storage_key: content.storageKey,
        source_path: null,
        updated_at: now,
      };
      if (previous) {
        await fileRows.update(trx, previous.id, values);
        return previous.storage_key;
      }
      await fileRows.insert(trx, { id: content.id, run_id: run.id, path: upload.path, created_at: now, ...values });
      return null;
    });
  }

  async access(actor: Actor, fileId: string): Promise<FilesTable> {
    const row = await fileRows.findWithWorkflow(this.database.db, fileId);
    if (!row) throw notFound('file');
    await this.workflows.access(actor, row.workflow_id, 'resource.read');
    const { workflow_id: _workflow, ...file } = row;
    return file;
  }

  async get(actor: Actor, fileId: string) {
    return presentFile(await this.access(actor, fileId));
  }

  /** The file's bytes, whole or a range (`end` inclusive), from storage or from its scanned folder. */
  async open(file: FilesTable, range?: { start: number; end: number }): Promise<Readable> {
    if (file.storage_key !== null) return this.storage.get(file.storage_key, range);
    // Scanned files are read again only while their real path stays inside the allowed roots
    // (a symbolic link swapped in after the scan must not lead elsewhere).
    const real =
      file.source_path === null
        ? null
        : await realPathInsideRoots(file.source_path, this.config.ingestion.allowedRoots);
    if (real === null) throw notFound('file content');
    return createReadStream(real, range ?? {});
  }
}
