import { IMAGE_COLUMNS, type ImageComponent, type PreviewAnswer, type TableSpec } from '@service/common';
import type { ImageStore } from '../images/store.js';
import { escapeHtml } from './html.js';

/**
 * A gallery's export (docs/dashboards.md "Images"): the spec is its first page as a table; the
 * page shows its thumbnails inlined as `data:` URLs (the page fetches nothing), captioned.
 */
export async function gallerySpec(
  component: ImageComponent,
  page: PreviewAnswer,
  images: Pick<ImageStore, 'thumbnailBytes'> | undefined,
) {
  const spec: TableSpec = { columns: page.columns, rows: page.rows };
  const captions = component.caption_columns ?? [IMAGE_COLUMNS.path];
  const items = await Promise.all(
    page.rows.map(async (row) => {
      const id = String(row[IMAGE_COLUMNS.id] ?? '');
      const path = String(row[IMAGE_COLUMNS.path] ?? '');
      const bytes = images === undefined ? null : await images.thumbnailBytes(component.data_collection_id, id);
      const caption = captions.map((name) => String(row[name] ?? '')).join(' · ');
      const image =
        bytes === null
          ? `<span class="dimmed">${escapeHtml(path)}</span>`
          : `<img src="data:image/webp;base64,${bytes.toString('base64')}" alt="${escapeHtml(path)}">`;
      return `<li><figure>${image}<figcaption>${escapeHtml(caption)}</figcaption></figure></li>`;
    }),
  );
  const title = component.title ?? null;
  const heading = title === null ? '' : `<h1>${escapeHtml(title)}</h1>`;
  const more = page.total > page.rows.length ? `<p class="dimmed">${page.rows.length} of ${page.total} images</p>` : '';
  return {
    spec,
    html: `${heading}<ul class="gallery">${items.join('')}</ul>${more}`,
    option: undefined,
    fallbackTitle: 'Images',
  };
}
