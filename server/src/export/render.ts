import {
  type CardComponent,
  type CardSpec,
  cardFormatOf,
  comparisonView,
  formatCardNumber,
  formatCell,
  gaugeView,
  paintedStep,
  scaleStep,
  sparklinePath,
  type TableColorScale,
  type TableComponent,
  type TableSpec,
  TONE_COLOR,
  thresholdColor,
} from '@service/common';
import { escapeHtml, markdownHtml } from './html.js';

const heading = (title: string | null) => (title ? `<h1>${escapeHtml(title)}</h1>` : '');

/**
 * A card as the dashboard shows it: its number written, coloured, compared and drawn (sparkline,
 * gauge) by the same functions as the web app's card (common/), so both say the same.
 */
export function cardHtml(title: string | null, spec: CardSpec, card: CardComponent): string {
  const value = escapeHtml(formatCardNumber(card.agg, spec.value, cardFormatOf(card)));
  // No whole-table number under an embed token (its view is all the holder may see).
  const all =
    spec.unfiltered_value === null
      ? null
      : escapeHtml(formatCardNumber(card.agg, spec.unfiltered_value, cardFormatOf(card)));
  const label = `${escapeHtml(spec.label)}: ${value}${all === null ? '' : `, all ${all}`}`;
  const tone = thresholdColor(card.thresholds, spec.value);
  return [
    heading(title),
    `<div role="group" aria-label="${label}">`,
    `<div class="dimmed">${escapeHtml(spec.label)}</div>`,
    `<div class="value${tone === null ? '' : ` tone-${tone}`}">${value}</div>`,
    comparisonHtml(card, spec),
    all === null ? '' : `<div class="dimmed">· all ${all}</div>`,
    cardArtHtml(card, spec),
    '</div>',
  ].join('');
}

function comparisonHtml(card: CardComponent, spec: CardSpec): string {
  const view = comparisonView(card.agg, card.comparison, spec.comparison, cardFormatOf(card));
  if (view === null) return '';
  const tone = view.tone === 'neutral' ? 'dimmed' : `tone-${TONE_COLOR[view.tone]}`;
  return `<div><span class="${tone}">${view.arrow} ${escapeHtml(view.change)}</span> <span class="dimmed">${escapeHtml(view.against)}</span></div>`;
}

/** The sparkline and the gauge as inline SVG, stroked by the tone's class (the CSP admits no style attribute). */
function cardArtHtml(card: CardComponent, spec: CardSpec): string {
  const line = spec.sparkline === undefined ? null : sparklinePath(spec.sparkline.points, 120, 28);
  const gauge = gaugeView(card, spec);
  const tone = `tone-${thresholdColor(card.thresholds, spec.value) ?? 'blue'}`;
  return [
    line === null
      ? ''
      : `<svg class="card-art ${tone}" width="120" height="32" viewBox="-2 -2 124 32" aria-hidden="true"><path d="${line}" fill="none" stroke-width="1.5"/></svg>`,
    gauge === null
      ? ''
      : `<svg class="card-art ${tone}" width="120" height="66" viewBox="0 0 100 55" aria-hidden="true"><path d="${gauge.track}" fill="none" stroke="#adb5bd" stroke-opacity="0.4" stroke-width="8"/>${gauge.fill === '' ? '' : `<path d="${gauge.fill}" fill="none" stroke-width="8"/>`}</svg>`,
  ].join('');
}

export function tableHtml(title: string | null, spec: TableSpec, scales: TableComponent['color_scales'] = []): string {
  const head = spec.columns.map((column) => `<th scope="col">${escapeHtml(column.name)}</th>`).join('');
  const scaleOf = new Map((scales ?? []).map((scale) => [scale.column, scale]));
  const rows = spec.rows
    .map((row) => {
      const cells = spec.columns.map((column) => {
        const value = row[column.name];
        const classes = [
          ...(typeof value === 'number' ? ['number'] : []),
          ...scaleClass(scaleOf.get(column.name), value, spec.color_ranges?.[column.name]),
        ];
        const attribute = classes.length === 0 ? '' : ` class="${classes.join(' ')}"`;
        return `<td${attribute}>${escapeHtml(formatCell(value))}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `${heading(title)}<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

/** The class painting a cell of a coloured column (the page's stylesheet has one per scheme and step). */
function scaleClass(scale: TableColorScale | undefined, value: unknown, range: [number, number] | undefined): string[] {
  const step = scale === undefined ? null : scaleStep(value, range);
  if (scale === undefined || step === null) return [];
  return [`scale-${scale.scheme ?? 'blues'}-${paintedStep(scale, step)}`];
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
