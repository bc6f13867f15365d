import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createTestDatabase,
  DIALECTS,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import { fileRows } from '../../src/tables/files.js';
import { imageFiles, imageProject } from './image-fixture.js';

/**
 * Image collections end to end (docs/dashboards.md "Images"): ingestion (one row per image, the
 * pattern's groups as columns, thumbnails in storage, a corrupt file and a bomb reported in their
 * rows and skipped), the gallery's pages under the dashboard's filters, and the image routes'
 * answers: thumbnails, the original bytes, SVG under a sandbox, bombs, non-images and paths refused.
 */

interface Page {
  columns: { name: string }[];
  rows: Record<string, unknown>[];
  total: number;
  limit: number;
  skip: number;
}

const GALLERY_PATHS = [
  ...['S01', 'S02', 'S03', 'S04'].flatMap((sample) =>
    ['dapi', 'gfp', 'merge'].map((kind) => `images/${sample}_${kind}.png`),
  ),
  'images/S05_photo.jpg',
  'images/S06_vector.svg',
];

for (const dialect of DIALECTS) {
  describe(`image collections [${dialect}]`, () => {
    let server: TestServer;
    let token: string;
    let files: Map<string, Buffer>;
    let ids: Awaited<ReturnType<typeof imageProject>>;
    let dashboardId: string;
    const imageIds = new Map<string, string>();

    beforeAll(async () => {
      server = await startTestServer(await createTestDatabase(dialect), { SERVICE_JOBS_WORKERS: '0' });
      token = (await login(server, ADMIN.email, ADMIN.password)).access_token;
      files = await imageFiles();
      ids = await imageProject(server, token, files);
      const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token,
        json: {
          project_id: ids.projectId,
          title: 'Microscopy',
          components: [
            {
              component_id: 'gallery',
              type: 'image',
              data_collection_id: ids.imagesId,
              page_size: 5,
              caption_columns: ['sample', 'kind'],
            },
            {
              component_id: 'sample',
              type: 'interactive',
              widget: 'multiselect',
              data_collection_id: ids.imagesId,
              column: 'sample',
            },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      dashboardId = created.body.dashboard_id;
      const all = await call<Page>(server, 'GET', `/datacollections/${ids.imagesId}/preview?limit=100`, { token });
      for (const row of all.body.rows) imageIds.set(String(row.path), String(row.image_id));
    });
    afterAll(async () => {
      await server.stop();
      await server.database.drop();
    });

    it('holds one row per file: size, format, the pattern groups, and why a file is no image', async () => {
      const all = await call<Page>(server, 'GET', `/datacollections/${ids.imagesId}/preview?limit=100&sort=path:asc`, {
        token,
      });
      expect(all.status, all.text).toBe(200);
      expect(all.body.total).toBe(16);
      const byPath = new Map(all.body.rows.map((row) => [String(row.path), row]));
      expect(byPath.get('images/S02_gfp.png')).toMatchObject({
        width: 500,
        height: 300,
        format: 'png',
        sample: 'S02',
        kind: 'gfp',
        bytes: files.get('images/S02_gfp.png')?.length,
        error: null,
      });
      expect(byPath.get('images/S05_photo.jpg')).toMatchObject({ width: 64, height: 48, format: 'jpeg', error: null });
      expect(byPath.get('images/S06_vector.svg')).toMatchObject({ width: 40, height: 20, format: 'svg', error: null });
      expect(byPath.get('images/S07_broken.png')).toMatchObject({ width: null, format: null });
      expect(String(byPath.get('images/S07_broken.png')?.error)).toMatch(/not an image|cannot be read/);
      expect(byPath.get('images/S08_bomb.png')).toMatchObject({ width: null, height: null });
      expect(String(byPath.get('images/S08_bomb.png')?.error)).toContain('more than the 100,000,000');
    });

    it('pages the gallery on the server in path order, leaving out the files that are no images', async () => {
      const data = await call<{ components: Record<string, Page> }>(server, 'POST', `/dashboards/${dashboardId}/data`, {
        token,
        json: { components: ['gallery'] },
      });
      expect(data.status, data.text).toBe(200);
      const first = data.body.components.gallery as Page;
      expect(first.total).toBe(14);
      expect(first.limit).toBe(5);
      expect(first.columns.map((column) => column.name)).toEqual([
        'image_id',
        'path',
        'width',
        'height',
        'sample',
        'kind',
      ]);
      expect(first.rows.map((row) => row.path)).toEqual(GALLERY_PATHS.slice(0, 5));
      const last = await call<Page>(server, 'GET', `/dashboards/${dashboardId}/components/gallery/rows?skip=10`, {
        token,
      });
      expect(last.status, last.text).toBe(200);
      expect(last.body.total).toBe(14);
      expect(last.body.rows.map((row) => row.path)).toEqual(GALLERY_PATHS.slice(10));
    });

    it("follows the dashboard's filters through the pattern's columns", async () => {
      const filters = [{ component_id: 'sample', value: ['S02', 'S05'] }];
      const data = await call<{ components: Record<string, Page> }>(server, 'POST', `/dashboards/${dashboardId}/data`, {
        token,
        json: { components: ['gallery'], filters },
      });
      expect(data.status, data.text).toBe(200);
      const page = data.body.components.gallery as Page;
      expect(page.total).toBe(4);
      expect(page.rows.map((row) => row.path)).toEqual([
        'images/S02_dapi.png',
        'images/S02_gfp.png',
        'images/S02_merge.png',
        'images/S05_photo.jpg',
      ]);
      const query = `filters=${encodeURIComponent(JSON.stringify(filters))}&skip=3&limit=2`;
      const paged = await call<Page>(server, 'GET', `/dashboards/${dashboardId}/components/gallery/rows?${query}`, {
        token,
      });
      expect(paged.body.rows.map((row) => row.path)).toEqual(['images/S05_photo.jpg']);
    });

    const image = (imageId: string, size = 'full') =>
      fetch(`${server.url}${API_PREFIX}/dashboards/${dashboardId}/components/gallery/images/${imageId}?size=${size}`, {
        headers: { authorization: `Bearer ${token}` },
      });

    it('serves thumbnails of at most 320 pixels a side as WebP, and the original bytes', async () => {
      const thumbnail = await image(imageIds.get('images/S01_merge.png') ?? '', 'thumbnail');
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/webp');
      const meta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata();
      // 600×300 → 320×160.
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 320, 160]);
      const small = await image(imageIds.get('images/S05_photo.jpg') ?? '', 'thumbnail');
      const smallMeta = await sharp(Buffer.from(await small.arrayBuffer())).metadata();
      // Never enlarged.
      expect([smallMeta.width, smallMeta.height]).toEqual([64, 48]);
      const full = await image(imageIds.get('images/S03_gfp.png') ?? '');
      expect(full.status).toBe(200);
      expect(full.headers.get('content-type')).toBe('image/png');
      expect(full.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await full.arrayBuffer()).equals(files.get('images/S03_gfp.png') as Buffer)).toBe(true);
    });

    it('serves SVG under a policy that runs no script', async () => {
      const svg = await image(imageIds.get('images/S06_vector.svg') ?? '');
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      expect(svg.headers.get('content-disposition')).toBe('inline; filename="S06_vector.svg"');
    });

    it('refuses a decompression bomb, a file that is no image, and paths, with 400s that say why', async () => {
      const bombed = await image(imageIds.get('images/S08_bomb.png') ?? '');
      expect(bombed.status).toBe(400);
      expect(await bombed.text()).toContain('30000×30000 pixels (900,000,000), more than the 100,000,000 allowed');
      const broken = await image(imageIds.get('images/S07_broken.png') ?? '');
      expect(broken.status).toBe(400);
      expect(await broken.text()).toContain('is not an image');
      const noThumbnail = await image(imageIds.get('images/S07_broken.png') ?? '', 'thumbnail');
      expect(noThumbnail.status).toBe(404);
      for (const path of ['..%2F..%2Fetc%2Fpasswd', '..%5C..%5Cwindows', 'images%2FS01_dapi.png', '%2Fetc%2Fpasswd']) {
        const traversal = await image(path);
        expect(traversal.status, path).toBe(400);
        expect(await traversal.text(), path).toContain('an image id is the image_id column');
      }
    });

    it("serves only the images of the gallery's collection", async () => {
      const samples = await call<Page>(server, 'GET', `/datacollections/${ids.samplesId}/preview`, { token });
      expect(samples.status).toBe(200);
      // A file of another collection of the same project (its id taken from the files list) is not an image here.
      const workflowFiles = await fileRows.ofWorkflow(server.context.database.db, ids.workflowId);
      const csvId = workflowFiles.find((file) => file.path === 'samples.csv')?.id ?? 'missing';
      expect((await image(csvId)).status).toBe(404);
      expect((await image('0f0e0d0c-unknown')).status).toBe(404);
      const collection = await fetch(
        `${server.url}${API_PREFIX}/datacollections/${ids.imagesId}/images/${imageIds.get('images/S01_gfp.png')}?size=thumbnail`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(collection.status).toBe(200);
      const wrongType = await fetch(`${server.url}${API_PREFIX}/datacollections/${ids.samplesId}/images/${csvId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(wrongType.status).toBe(404);
    });
  });
}
