import type { EmbedToken, ExportTheme } from '@service/common';

/** Expiries offered when creating an embed token (hours; the server allows up to a year). */
export const EMBED_EXPIRIES = [
  { label: '1 day', hours: 24 },
  { label: '7 days', hours: 24 * 7 },
  { label: '30 days', hours: 24 * 30 },
  { label: '90 days', hours: 24 * 90 },
  { label: '1 year', hours: 24 * 365 },
] as const;
export const DEFAULT_EMBED_HOURS = 24 * 30;

const PLACEHOLDER = /\{component_id\}|%7Bcomponent_id%7D/gi;

/**
 * The address of one component under a token: a dashboard-wide token's URLs are templates with a
 * literal `{component_id}` (the server's answer), a component token's already name it. The theme
 * is added unless it is the pages' default (light), then `shown`: what the reader made of the
 * component (a table's `column_filters`, `sort`, `columns`; a coverage track's `contig`).
 */
export function embedUrl(
  template: string,
  componentId: string,
  theme: ExportTheme = 'light',
  shown: Readonly<Record<string, string>> = {},
): string {
  const url = template.replace(PLACEHOLDER, encodeURIComponent(componentId));
  const added = new URLSearchParams({ ...(theme === 'light' ? {} : { theme }), ...shown }).toString();
  if (added === '') return url;
  return `${url}${url.includes('?') ? '&' : '?'}${added}`;
}

/** Text safe inside a double-quoted HTML attribute. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ATTRIBUTE_ENTITIES[character] ?? character);
}

const ATTRIBUTE_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export interface SnippetOptions {
  src: string;
  /** The frame's accessible name (the component's title). */
  title: string;
  height?: number;
}

/**
 * An `<iframe>` to paste into another site: full width, a fixed height (the page inside follows
 * its frame's size), no border, loaded lazily, and no Referer sent (the address carries the token).
 */
export function iframeSnippet({ src, title, height = 400 }: SnippetOptions): string {
  return (
    `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(title)}" width="100%" height="${height}" ` +
    'style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>'
  );
}

export type EmbedTokenState = 'active' | 'expired' | 'revoked';

export function embedTokenState(token: Pick<EmbedToken, 'revoked' | 'expires_at'>, now: Date): EmbedTokenState {
  if (token.revoked) return 'revoked';
  return Date.parse(token.expires_at) <= now.getTime() ? 'expired' : 'active';
}

/** What a token opens: the whole dashboard, or one component by its title. */
export function embedScopeLabel(
  token: Pick<EmbedToken, 'component_id' | 'filters' | 'as_of'>,
  titles: ReadonlyMap<string, string>,
): string {
  const scope =
    token.component_id === null
      ? 'Whole dashboard'
      : (titles.get(token.component_id) ?? `Component ${token.component_id}`);
  const pinned = [
    token.filters.length > 0 ? `${token.filters.length} fixed filter${token.filters.length === 1 ? '' : 's'}` : '',
    token.as_of !== null ? 'pinned version' : '',
  ].filter((part) => part !== '');
  return pinned.length === 0 ? scope : `${scope} (${pinned.join(', ')})`;
}
