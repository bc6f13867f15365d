import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { call, type TestServer, uploadFile } from '../../../test/support/test-server.js';

/**
 * A small image collection, made here: 12 PNG plots of samples S01…S04 (3 kinds each, sizes
 * 400×300 … so their thumbnails are 320 wide), one JPEG, one SVG with a script in it, a corrupt
 * file and a decompression bomb (a 1×1 PNG whose header claims 30,000 × 30,000 pixels).
 */
export const IMAGE_PROJECT_YAML = `
name: microscopy
workflows:
  - name: imaging
    data_collections:
      - tag: images
        type: image
        pattern: "images/(?P<sample>S\\\\d+)_(?P<kind>[a-z]+)\\\\.(png|jpg|svg)"
        format: csv
      - tag: samples
        pattern: "samples\\\\.csv"
        format: csv
`;

export const SVG_WITH_SCRIPT = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><script>alert(1)</script><rect width="40" height="20" fill="teal"/></svg>',
);

export async function png(width: number, height: number, color = '#3366aa'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

/** A valid 1×1 PNG whose header says `side`×`side`: decoding it would need side² pixels. */
export async function bomb(side = 30_000): Promise<Buffer> {
  const bytes = Buffer.from(await png(1, 1));
  bytes.writeUInt32BE(side, 16);
  bytes.writeUInt32BE(side, 20);
  bytes.writeUInt32BE(crc32(bytes.subarray(12, 29)), 29);
  return bytes;
}

export const KINDS = ['dapi', 'gfp', 'merge'] as const;

/** Every file of the image collection: path → bytes (the 12 plots, the JPEG, the SVG, the corrupt one, the bomb). */
export async function imageFiles(): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (let sample = 1; sample <= 4; sample++) {
    for (const [index, kind] of KINDS.entries()) {
      files.set(`images/S0${sample}_${kind}.png`, await png(400 + 100 * index, 300));
    }
  }
  files.set(
    'images/S05_photo.jpg',
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#aa3300' } })
      .jpeg()
      .toBuffer(),
  );
  files.set('images/S06_vector.svg', SVG_WITH_SCRIPT);
  files.set('images/S07_broken.png', Buffer.from('not a png at all, only text'));
  files.set('images/S08_bomb.png', await bomb());
  return files;
}

export const SAMPLES_CSV =
  'sample,group\nS01,control\nS02,control\nS03,treated\nS04,treated\nS05,treated\nS06,control\n';

/**
 * The project imported (named `name`: an import of a name the caller already used updates that
 * project), every file uploaded and both collections upserted; ids by tag.
 */
export async function imageProject(server: TestServer, token: string, files: Map<string, Buffer>, name = 'microscopy') {
  const imported = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
    token,
    json: { yaml: IMAGE_PROJECT_YAML.replace('name: microscopy', `name: ${name}`) },
  });
  if (imported.status !== 201) throw new Error(imported.text);
  const projectId = imported.body.project_id;
  const workflows = await call<{ items: { workflow_id: string }[] }>(
    server,
    'GET',
    `/projects/${projectId}/workflows`,
    {
      token,
    },
  );
  const workflowId = workflows.body.items[0]?.workflow_id ?? '';
  const collections = await call<{ items: { data_collection_id: string; tag: string }[] }>(
    server,
    'GET',
    `/workflows/${workflowId}/datacollections`,
    { token },
  );
  const id = (tag: string) => collections.body.items.find((item) => item.tag === tag)?.data_collection_id ?? '';
  const uploads = [...files.entries()].map(([path, content]) => ({ tag: 'images', path, content }));
  uploads.push({ tag: 'samples', path: 'samples.csv', content: Buffer.from(SAMPLES_CSV) });
  for (const file of uploads) {
    const status = await uploadFile(server, token, id(file.tag), {
      run: 'run1',
      path: file.path,
      content: file.content,
    });
    if (status !== 201) throw new Error(`upload of ${file.path}: ${status}`);
  }
  for (const tag of ['images', 'samples']) {
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: id(tag) },
    });
    if (upserted.status !== 200) throw new Error(upserted.text);
  }
  return { projectId, workflowId, imagesId: id('images'), samplesId: id('samples') };
}
