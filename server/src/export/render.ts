import { type CardSpec, type ComponentAgg, formatCardValue, formatCell, type TableSpec } from '@service/common';
import { escapeHtml, markdownHtml } from './html.js';

const heading = (title: string | null) => (title ? `<h1>${escapeHtml(title)}</h1>` : '');

/** A card as the dashboard shows it: its numbers written by the web app's formatter (common/), so they round the same. */
export function cardHtml(title: string | null, spec: CardSpec, agg: ComponentAgg): string {
  const value = escapeHtml(formatCardValue(agg, spec.value));
  // No whole-table number under an embed token (its view is all the holder may see).
  const all = spec.unfiltered_value === null ? null : escapeHtml(formatCardValue(agg, spec.unfiltered_value));
  const label = `${escapeHtml(spec.label)}: ${value}${all === null ? '' : `, all ${all}`}`;
  return [
    heading(title),
    `<div role="group" aria-label="${label}">`,
    `<div class="dimmed">${escapeHtml(spec.label)}</div>`,
    `<div class="value">${value}</div>`,
    all === null ? '' : `<div class="dimmed">· all ${all}</div>`,
    '</div>',
  ].join('');
}

export function tableHtml(title: string | null, spec: TableSpec): string {
  const head = spec.columns.map((column) => `<th scope="col">${escapeHtml(column.name)}</th>`).join('');
  const rows = spec.rows
    .map((row) => {
      const cells = spec.columns.map((column) => {
        const value = row[column.name];
        const numeric = typeof value === 'number' ? ' class="number"' : '';
        return `<td${numeric}>${escapeHtml(formatCell(value))}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `${heading(title)}<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

export function textHtml(title: string | null, markdown: string): string {
  return `${heading(title)}${markdownHtml(markdown)}`;
}

/** The figure's frame; the chart draws its own title. `description` is the chart's accessible summary. */
export function figureHtml(description: string): string {
  return `<div id="chart" role="img" aria-label="${escapeHtml(description)}"></div>`;
}

/** What the page says when there is nothing to show (a refused token, a broken component). */
export function messageHtml(title: string, detail: string): string {
  return `<h1>${escapeHtml(title)}</h1><p class="dimmed">${escapeHtml(detail)}</p>`;
}
