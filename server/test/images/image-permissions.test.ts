import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSharedDashboard,
  createTestDatabase,
  DIALECTS,
  roleTokens,
  SHARING,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import { imageProject, png } from './image-fixture.js';

/**
 * Image bytes obey the dashboard's readers exactly as its data does (docs/architecture.md
 * "Permissions"; docs/dashboards.md "Images"): every role on a private and a public dashboard, in
 * auth and public modes (anonymous and temporary callers), the collection route for the project's
 * readers, and the export route for embed tokens of the gallery or its whole dashboard only.
 */

const MODES = { auth: {}, public: { SERVICE_AUTH_PUBLIC_MODE: 'true' } } as const;

for (const dialect of DIALECTS) {
  for (const [mode, env] of Object.entries(MODES)) {
    describe(`image permissions in ${mode} mode [${dialect}]`, () => {
      let server: TestServer;
      const tokens: Record<string, string | undefined> = {};
      let privateId: string;
      let publicId: string;
      let imagesId: string;
      let imageId: string;
      const publicLike = mode !== 'auth';

      beforeAll(async () => {
        server = await startTestServer(await createTestDatabase(dialect), { ...env, SERVICE_JOBS_WORKERS: '0' });
        Object.assign(tokens, await roleTokens(server, publicLike));
        const files = new Map([['images/S01_dapi.png', await png(40, 30)]]);
        const project = await imageProject(server, tokens.owner as string, files);
        imagesId = project.imagesId;
        const rows = await call<{ rows: { image_id: string }[] }>(
          server,
          'GET',
          `/datacollections/${imagesId}/preview`,
          {
            token: tokens.owner,
          },
        );
        imageId = rows.body.rows[0]?.image_id ?? '';
        const dashboard = (isPublic: boolean) =>
          createSharedDashboard(
            server,
            tokens.owner as string,
            {
              project_id: project.projectId,
              title: 'Images',
              is_public: isPublic,
              components: [
                { component_id: 'gallery', type: 'image', data_collection_id: imagesId },
                { component_id: 'other_gallery', type: 'image', data_collection_id: imagesId },
              ],
            },
            { ...SHARING, is_public: isPublic },
          );
        privateId = await dashboard(false);
        publicId = await dashboard(true);
      });
      afterAll(async () => {
        await server.stop();
        await server.database.drop();
      });

      const get = async (path: string, token: string | undefined) => {
        const response = await fetch(`${server.url}${API_PREFIX}${path}`, {
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        return { status: response.status, bytes, type: response.headers.get('content-type') };
      };
      const gallery = (id: string, actor: string, size = 'thumbnail') =>
        get(`/dashboards/${id}/components/gallery/images/${imageId}?size=${size}`, tokens[actor]);

      it("serves a private dashboard's images to its readers only", async () => {
        const expected: Record<string, number> = {
          admin: 200,
          owner: 200,
          editor: 200,
          viewer: 200,
          other: 404,
          ...(publicLike ? { temporary: 404 } : {}),
          anonymous: publicLike ? 404 : 401,
        };
        for (const [actor, status] of Object.entries(expected)) {
          for (const size of ['thumbnail', 'full']) {
            const answer = await gallery(privateId, actor, size);
            expect(answer.status, `${actor} ${size}`).toBe(status);
            expect(answer.type, `${actor} ${size}`).toBe(
              status === 200
                ? size === 'full'
                  ? 'image/png'
                  : 'image/webp'
                : 'application/problem+json; charset=utf-8',
            );
          }
        }
      });

      it("serves a public dashboard's images to anyone in public mode, and to signed-in users in auth mode", async () => {
        for (const actor of ['other', ...(publicLike ? ['temporary'] : []), 'anonymous']) {
          const status = actor === 'anonymous' && !publicLike ? 401 : 200;
          expect((await gallery(publicId, actor)).status, actor).toBe(status);
        }
      });

      it("serves the collection's images to the project's readers only", async () => {
        const path = `/datacollections/${imagesId}/images/${imageId}?size=thumbnail`;
        for (const [actor, status] of Object.entries({
          admin: 200,
          owner: 200,
          // Sharing a dashboard shares it, not the project.
          viewer: 404,
          other: 404,
          anonymous: publicLike ? 404 : 401,
        })) {
          expect((await get(path, tokens[actor])).status, actor).toBe(status);
        }
      });

      it("serves an export's images to embed tokens of the gallery or the dashboard, and refuses others", async () => {
        const token = async (body: Record<string, unknown>) => {
          const created = await call<{ token: string }>(server, 'POST', `/dashboards/${privateId}/embed_tokens`, {
            token: tokens.owner,
            json: body,
          });
          expect(created.status, created.text).toBe(201);
          return created.body.token;
        };
        const exported = (embed: string | undefined, component = 'gallery') =>
          get(
            `/export/components/${privateId}/${component}/images/${imageId}?size=thumbnail${embed === undefined ? '' : `&token=${embed}`}`,
            undefined,
          );
        expect((await exported(await token({ component_id: 'gallery' }))).status).toBe(200);
        expect(await exported(await token({}))).toMatchObject({ status: 200, type: 'image/webp' });
        expect((await exported(await token({ component_id: 'other_gallery' }))).status).toBe(401);
        expect((await exported('emb_not-a-token')).status).toBe(401);
        expect((await exported(undefined)).status).toBe(publicLike ? 404 : 401);
      });
    });
  }
}
