import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, call, login } from '../../../test/support/test-server.js';
import { type BackendServer, describeEachBackend, INTERNAL_KEY, startBackendServer } from '../maintenance/support.js';
import { imageProject, png } from './image-fixture.js';

/**
 * An image collection's thumbnails (`thumbnails/<collection>/…`, docs/dashboards.md "Images") go
 * with it: deleting the collection, or its project, deletes them from storage, local or S3, and
 * deleting a run deletes those of its files; what a deletion that failed half-way left, vacuum removes.
 */

const thumbnailsOf = (keys: string[], collectionId: string) =>
  keys.filter((key) => key.startsWith(`thumbnails/${collectionId}/`));

describeEachBackend('thumbnails are deleted with their collection', (dialect, storage) => {
  let backend: BackendServer;
  let token: string;
  let files: Map<string, Buffer>;
  beforeAll(async () => {
    backend = await startBackendServer(dialect, storage);
    token = (await login(backend.server, ADMIN.email, ADMIN.password)).access_token;
    files = new Map([
      ['images/S01_dapi.png', await png(400, 300)],
      ['images/S02_gfp.png', await png(500, 300, '#aa6633')],
    ]);
  });
  afterAll(async () => {
    await backend?.stop();
  });

  it('deleting an image collection deletes its thumbnails, and nothing of another collection', async () => {
    const kept = await imageProject(backend.server, token, files, 'kept-collection');
    const doomed = await imageProject(backend.server, token, files, 'doomed-collection');
    expect(thumbnailsOf(await backend.keys(), doomed.imagesId)).toHaveLength(2);

    const deleted = await call(backend.server, 'DELETE', `/datacollections/${doomed.imagesId}`, { token });
    expect(deleted.status, deleted.text).toBe(204);
    const keys = await backend.keys();
    expect(thumbnailsOf(keys, doomed.imagesId)).toEqual([]);
    // On local storage the collection's folder goes too, not only the files in it.
    expect(keys.filter((key) => key.includes(doomed.imagesId))).toEqual([]);
    expect(thumbnailsOf(keys, kept.imagesId)).toHaveLength(2);
    const thumbnail = await call(
      backend.server,
      'GET',
      `/datacollections/${kept.imagesId}/images/${await firstImageId(kept.imagesId)}?size=thumbnail`,
      { token },
    );
    expect(thumbnail.status).toBe(200);
  });

  it('deleting the project deletes the thumbnails of its image collections', async () => {
    const project = await imageProject(backend.server, token, files, 'doomed-project');
    expect(thumbnailsOf(await backend.keys(), project.imagesId)).toHaveLength(2);
    const deleted = await call(backend.server, 'DELETE', `/projects/${project.projectId}`, { token });
    expect(deleted.status, deleted.text).toBe(204);
    expect(thumbnailsOf(await backend.keys(), project.imagesId)).toEqual([]);
  });

  it("deleting a run deletes its images' thumbnails; the collection stays", async () => {
    const project = await imageProject(backend.server, token, files, 'doomed-run');
    const imageId = await firstImageId(project.imagesId);
    const file = await call<{ run_id: string }>(backend.server, 'GET', `/files/${imageId}`, { token });
    expect(file.status, file.text).toBe(200);
    const deleted = await call(backend.server, 'DELETE', `/runs/${file.body.run_id}`, { token });
    expect(deleted.status, deleted.text).toBe(204);
    expect(thumbnailsOf(await backend.keys(), project.imagesId)).toEqual([]);
    const collection = await call(backend.server, 'GET', `/datacollections/${project.imagesId}`, { token });
    expect(collection.status).toBe(200);
  });

  it('vacuum removes the thumbnails a failed deletion left, and keeps those of living collections', async () => {
    const kept = await imageProject(backend.server, token, files, 'kept-project');
    const left = await imageProject(backend.server, token, files, 'left-behind');
    // The rows go without the storage, as when deleting storage failed after the commit.
    await backend.server.context.database.db.deleteFrom('projects').where('id', '=', left.projectId).execute();
    expect(thumbnailsOf(await backend.keys(), left.imagesId)).toHaveLength(2);

    const vacuum = async (dryRun: boolean) =>
      call<{ removed_thumbnails: number; removed_keys: string[] }>(backend.server, 'POST', '/internal/vacuum', {
        headers: { 'x-internal-key': INTERNAL_KEY },
        json: { dry_run: dryRun },
      });
    const dry = await vacuum(true);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.removed_thumbnails).toBe(2);
    expect(thumbnailsOf(await backend.keys(), left.imagesId)).toHaveLength(2);

    const wet = await vacuum(false);
    expect(wet.body.removed_thumbnails).toBe(2);
    expect(thumbnailsOf(wet.body.removed_keys, left.imagesId)).toHaveLength(2);
    const keys = await backend.keys();
    expect(thumbnailsOf(keys, left.imagesId)).toEqual([]);
    expect(thumbnailsOf(keys, kept.imagesId)).toHaveLength(2);
    expect((await vacuum(false)).body.removed_thumbnails).toBe(0);
  });

  async function firstImageId(collectionId: string): Promise<string> {
    const preview = await call<{ rows: { image_id: string }[] }>(
      backend.server,
      'GET',
      `/datacollections/${collectionId}/preview?limit=1`,
      { token },
    );
    return preview.body.rows[0]?.image_id ?? '';
  }
});
