import { sameSitePath } from './site-path.js';

/**
 * The Markdown of text components, parsed into blocks (headings, paragraphs, `-`/`*`/`1.` lists,
 * fenced code blocks) the web app renders as React elements and the export as escaped HTML; raw
 * HTML in the text stays text either way. Inline marks: `**bold**`, `*italic*`/`_italic_`,
 * `` `code` `` and `[links](url)` (MARKDOWN_INLINE); links go only where `safeHref` allows.
 */

export type MarkdownBlock =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string };

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const UNORDERED = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;
const FENCE = /^\s*(```|~~~)/;

export function parseBlocks(markdown: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      endParagraph();
      const code: string[] = [];
      for (
        index++;
        index < lines.length && !(lines[index] as string).trimStart().startsWith(fence[1] as string);
        index++
      )
        code.push(lines[index] as string);
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    const item = UNORDERED.exec(line) ?? ORDERED.exec(line);
    if (line.trim() === '') endParagraph();
    else if (heading) {
      endParagraph();
      blocks.push({ kind: 'heading', level: (heading[1] as string).length, text: heading[2] as string });
    } else if (item) {
      endParagraph();
      const ordered = ORDERED.test(line);
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'list' && last.ordered === ordered) last.items.push(item[1] as string);
      else blocks.push({ kind: 'list', ordered, items: [item[1] as string] });
    } else paragraph.push(line.trim());
  }
  endParagraph();
  return blocks;
}

/**
 * The anchor a heading gets, so `[see below](#alpha-diversity)` scrolls to it: its words,
 * lowercase, joined by `-` (marks and punctuation dropped).
 */
export function headingAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_]|\[([^\]]*)\]\([^)]*\)/g, (_, label?: string) => label ?? '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** `?tab=<tab_id>`: a link to another tab of the same dashboard (its filters kept); else null. */
export function tabLinkTarget(href: string): string | null {
  return /^\?tab=([A-Za-z0-9][A-Za-z0-9_.-]{0,63})$/.exec(href)?.[1] ?? null;
}

/**
 * A link target we follow: web and mail addresses, paths of this site, a heading of the page
 * (`#anchor`) and a tab of the dashboard (`?tab=`). A "path" that would take the browser to
 * another host (`//host`, `/\host`, `/..//host`) is no link at all: it would open in the same tab
 * as if it were ours (the same check as the sign-in `next`).
 */
export function safeHref(href: string): string | null {
  if (/^(https?:|mailto:)/i.test(href)) return href;
  if (/^#[\p{L}\p{N}_-]+$/u.test(href) || tabLinkTarget(href) !== null) return href;
  if (href.startsWith('/')) return sameSitePath(href);
  return null;
}

/** The inline marks: code, bold, italic (two spellings), link label and target, in this group order. */
export const MARKDOWN_INLINE = /`([^`]+)`|\*\*(.+?)\*\*|\*(.+?)\*|_(.+?)_|\[([^\]]+)\]\(([^)\s]+)\)/;
