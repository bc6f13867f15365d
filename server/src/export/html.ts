import { headingAnchor, MARKDOWN_INLINE, type MarkdownBlock, parseBlocks, safeHref } from '@service/common';

/** Text as HTML text or attribute value: nothing in it can open a tag, an entity or leave a quote. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * JSON to inline in a `<script type="application/json">`: `<` (so no `</script>` or `<!--` can end
 * or bend the element), `>` and `&` become JSON escapes, which JSON.parse reads back unchanged.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Markdown as escaped HTML, by the same rules as the web app's text components (common/src/markdown.ts). */
export function markdownHtml(markdown: string): string {
  return parseBlocks(markdown).map(blockHtml).join('\n');
}

function blockHtml(block: MarkdownBlock): string {
  switch (block.kind) {
    case 'heading': {
      // Headings start one level below the page's title, as on the dashboard.
      const level = Math.min(6, block.level + 1);
      return `<h${level} id="${escapeHtml(headingAnchor(block.text))}">${inlineHtml(block.text)}</h${level}>`;
    }
    case 'list': {
      const tag = block.ordered ? 'ol' : 'ul';
      return `<${tag}>${block.items.map((item) => `<li>${inlineHtml(item)}</li>`).join('')}</${tag}>`;
    }
    case 'code':
      return `<pre><code>${escapeHtml(block.text)}</code></pre>`;
    default:
      return `<p>${inlineHtml(block.text)}</p>`;
  }
}

function inlineHtml(text: string): string {
  let out = '';
  let rest = text;
  for (let match = MARKDOWN_INLINE.exec(rest); match !== null; match = MARKDOWN_INLINE.exec(rest)) {
    out += escapeHtml(rest.slice(0, match.index));
    const [, code, bold, italic, underscored, label, href] = match;
    if (code !== undefined) out += `<code>${escapeHtml(code)}</code>`;
    else if (bold !== undefined) out += `<strong>${inlineHtml(bold)}</strong>`;
    else if (italic !== undefined || underscored !== undefined)
      out += `<em>${inlineHtml(italic ?? underscored ?? '')}</em>`;
    else {
      const target = safeHref(href ?? '');
      // Paths and tabs of the dashboard's site mean nothing inside someone else's page: only
      // absolute links, and anchors of the page's own headings.
      out +=
        target === null || target.startsWith('/') || target.startsWith('?')
          ? inlineHtml(label ?? '')
          : target.startsWith('#')
            ? `<a href="${escapeHtml(target)}">${inlineHtml(label ?? '')}</a>`
            : `<a href="${escapeHtml(target)}" target="_blank" rel="noreferrer noopener">${inlineHtml(label ?? '')}</a>`;
    }
    rest = rest.slice(match.index + match[0].length);
  }
  return out + escapeHtml(rest);
}
