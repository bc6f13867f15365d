import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { IMAGE_CONTENT_TYPES, type ImageQuery } from '@service/common';
import type { DashboardRecord } from '../dashboards/repository.js';
import type { DashboardsService } from '../dashboards/service.js';
import { componentsOf } from '../dashboards/service.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import type { Database } from '../db/database.js';
import type { DataCollectionsTable, FilesTable } from '../db/tables.js';
import type { ObjectFiles } from '../engine/object-files.js';
import { DomainError, notFound } from '../errors.js';
import { realPathInsideRoots } from '../locations/allowed-roots.js';
import { compilePattern } from '../locations/patterns.js';
import type { Actor } from '../policy/actor.js';
import { fileRows } from '../tables/files.js';
import { formatOf, pixelsOf } from './probe.js';
import type { ImageStore } from './store.js';

/** An image's bytes as a route sends them. */
export interface ServedImage {
  stream: Readable;
  size: number;
  contentType: string;
  filename: string;
}

export interface ImagesDeps {
  database: Pick<Database, 'db'>;
  dashboards: Pick<DashboardsService, 'access' | 'repository'>;
  dataCollections: Pick<DataCollectionsService, 'access'>;
  /** Embed tokens (export/embed-tokens.ts): the dashboard a token opens to this component, or 401. */
  tokens: { redeem(token: string, dashboardId: string, componentId: string): Promise<{ record: DashboardRecord }> };
  store: Pick<ImageStore, 'thumbnail'>;
  files: Pick<ObjectFiles, 'acquire'>;
  allowedRoots: readonly string[];
}

/**
 * An image collection's images and thumbnails (docs/dashboards.md "Images"), for the readers of
 * a dashboard whose gallery shows them (public dashboards and embed tokens included) or of the
 * collection. An image is named by its id (the registered file's), never by a path, and must be a
 * file of the collection; the full image is served only when it is an image by its content and
 * within MAX_IMAGE_PIXELS, an SVG under a policy that lets it run nothing.
 */
export class ImagesService {
  constructor(private readonly deps: ImagesDeps) {}

  /** Through a dashboard's gallery: its readers (the policy decides). */
  async ofDashboard(actor: Actor, dashboardId: string, componentId: string, imageId: string, query: ImageQuery) {
    const { record } = await this.deps.dashboards.access(actor, dashboardId, 'resource.read');
    return this.ofGallery(record, componentId, imageId, query);
  }

  /** Through an export: an embed token for the dashboard or this component, or else the dashboard's readers. */
  async ofExport(
    actor: () => Promise<Actor>,
    dashboardId: string,
    componentId: string,
    imageId: string,
    query: ImageQuery,
  ) {
    if (query.token !== undefined) {
      const grant = await this.deps.tokens.redeem(query.token, dashboardId, componentId);
      return this.ofGallery(grant.record, componentId, imageId, query);
    }
    return this.ofDashboard(await actor(), dashboardId, componentId, imageId, query);
  }

  /** Of an image collection: its readers. Another collection type is a 404. */
  async ofCollection(actor: Actor, dataCollectionId: string, imageId: string, query: ImageQuery) {
    const { row } = await this.deps.dataCollections.access(actor, dataCollectionId, 'resource.read');
    if (row.type !== 'image')
      throw new DomainError('not_found', `the data collection is a ${row.type} collection, not an image one`);
    return this.serve(row, imageId, query);
  }

  private async ofGallery(
    record: DashboardRecord,
    componentId: string,
    imageId: string,
    query: ImageQuery,
  ): Promise<ServedImage> {
    const component = componentsOf(record).find((candidate) => candidate.component_id === componentId);
    if (component === undefined) throw notFound('component');
    if (component.type !== 'image') {
      throw new DomainError('validation_failed', `a ${component.type} component shows no images`, [
        { path: 'params.component_id', message: `a ${component.type} component shows no images` },
      ]);
    }
    const [row] = await this.deps.dashboards.repository.collectionRowsOfProject(record.row.project_id, [
      component.data_collection_id,
    ]);
    if (row === undefined || row.type !== 'image') throw notFound('image');
    return this.serve(row, imageId, query);
  }

  private async serve(row: DataCollectionsTable, imageId: string, query: ImageQuery): Promise<ServedImage> {
    const file = await fileRows.findWithWorkflow(this.deps.database.db, imageId);
    if (file === undefined || file.workflow_id !== row.workflow_id || !compilePattern(row.pattern).test(file.path)) {
      throw notFound('image');
    }
    const filename = file.path.split('/').pop() ?? 'image';
    if (query.size === 'thumbnail') {
      const thumbnail = await this.deps.store.thumbnail(row.id, file.id);
      if (thumbnail === null)
        throw new DomainError('not_found', 'the image has no thumbnail: it could not be read as an image');
      return { ...thumbnail, contentType: 'image/webp', filename: `${filename}.webp` };
    }
    return this.original(file, filename);
  }

  /** The file as it is, once its content proved an image of an allowed size. */
  private async original(file: FilesTable, filename: string): Promise<ServedImage> {
    const { path, release } = await this.localPath(file);
    try {
      const format = await formatOf(path);
      const type = format === null ? undefined : IMAGE_CONTENT_TYPES[format];
      if (type === undefined) {
        throw new DomainError(
          'validation_failed',
          `${file.path} is not an image (PNG, JPEG, WebP, GIF, TIFF, AVIF or SVG)`,
        );
      }
      const tooBig = format === 'svg' ? null : await pixelsOf(path);
      if (tooBig !== null) throw new DomainError('validation_failed', `${file.path}: ${tooBig}`);
      const stream = createReadStream(path);
      stream.once('close', release);
      return { stream, size: file.size, contentType: type, filename };
    } catch (error) {
      release();
      throw error;
    }
  }

  private async localPath(file: FilesTable): Promise<{ path: string; release: () => void }> {
    if (file.source_path !== null) {
      const real = await realPathInsideRoots(file.source_path, this.deps.allowedRoots);
      if (real === null) {
        throw new DomainError('validation_failed', `${file.path} is not readable inside the allowed roots`);
      }
      return { path: real, release: () => undefined };
    }
    if (file.storage_key === null) throw notFound('image');
    const lease = await this.deps.files.acquire([{ key: file.storage_key, size: file.size }]);
    return { path: lease.paths[0] as string, release: () => lease.release() };
  }
}
