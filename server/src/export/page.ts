import {
  CARD_COLOR_HEX,
  type ExportTheme,
  PALETTES,
  schemeSteps,
  TABLE_SCALE_SCHEMES,
  usesWorldMap,
} from '@service/common';
import type { EChartsOption } from 'echarts';
import world from 'world-atlas/countries-110m.json' with { type: 'json' };
import { escapeHtml, inlineJson } from './html.js';
import { cspHash, pageScript } from './page-script.js';

/** What a page shows: its title, its body (already escaped HTML), and the figure's option if any. */
export interface PageContent {
  title: string;
  theme: ExportTheme;
  /** HTML of the component (escaped by whoever made it). */
  body: string;
  /** A figure's ECharts option, drawn into `#chart` by the inlined script. */
  option?: unknown;
}

export interface Page {
  html: string;
  /** The page's Content-Security-Policy: nothing from anywhere, its own inline script and style by hash. */
  csp: string;
}

/** Page colours: the web app's body in each scheme, and the chart palette's text. */
const BACKGROUND: Record<ExportTheme, string> = { light: '#ffffff', dark: '#242424' };

function stylesheet(theme: ExportTheme): string {
  const palette = PALETTES[theme];
  return [
    `:root{color-scheme:${theme}}`,
    `html,body{margin:0;height:100%;background:${BACKGROUND[theme]};color:${palette.text};font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}`,
    'main{box-sizing:border-box;height:100%;display:flex;flex-direction:column;padding:12px;overflow:auto}',
    'h1{font-size:16px;margin:0 0 8px}h2,h3,h4,h5,h6{margin:12px 0 6px}',
    '#chart{flex:1;min-height:160px;width:100%}',
    `.dimmed{color:${palette.dimmed}}.value{font-size:28px;font-weight:700;line-height:1.2}`,
    // A card's threshold colours and change (classes: the CSP admits no inline style attribute).
    ...Object.entries(CARD_COLOR_HEX).map(([name, hex]) => `.tone-${name}{color:${hex[theme]};stroke:${hex[theme]}}`),
    '.card-art{display:block;margin-top:4px}',
    // Table colour scales: a class per scheme and step (the CSP admits no inline style attribute).
    ...TABLE_SCALE_SCHEMES.flatMap((scheme) =>
      schemeSteps(scheme).map(
        (step, index) => `.scale-${scheme}-${index}{background:${step.background};color:${step.color}}`,
      ),
    ),
    `table{border-collapse:collapse;font-size:13px}th,td{border-bottom:1px solid ${palette.splitLine};padding:4px 8px;text-align:left;white-space:nowrap}`,
    'td.number{text-align:right;font-variant-numeric:tabular-nums}',
    `pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;background:${palette.splitLine};border-radius:4px}pre{padding:8px;overflow:auto}code{padding:0 3px}`,
    `a{color:${palette.series[0]}}`,
    // A gallery's thumbnails, inlined (img-src data:).
    '.gallery{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:8px}',
    '.gallery img{display:block;width:100%;height:120px;object-fit:contain}.gallery figcaption{font-size:12px;overflow-wrap:anywhere}',
  ].join('\n');
}

/** A map's page carries the world's countries (the script registers them before drawing); others nothing. */
function geoJson(option: unknown): string {
  if (!usesWorldMap(option as EChartsOption)) return '';
  return `<script type="application/json" id="export-geo">${inlineJson(world)}</script>\n`;
}

/**
 * One self-contained page: no request leaves it (`default-src 'none'`), its only script (the
 * figure's) and style are admitted by their hashes, and other sites may frame it as
 * `frameAncestors` says. The option travels as inert JSON the script parses.
 */
export async function renderPage(content: PageContent, frameAncestors: readonly string[]): Promise<Page> {
  const style = stylesheet(content.theme);
  const script = content.option === undefined ? null : await pageScript();
  const data =
    content.option === undefined
      ? ''
      : `<script type="application/json" id="export-spec">${inlineJson(content.option)}</script>\n${geoJson(content.option)}`;
  // The page's own policy travels inside it too (a `<meta>`), so a copy saved to disk keeps it;
  // `frame-ancestors` counts only as a header.
  const policy = [
    "default-src 'none'",
    `script-src ${script === null ? "'none'" : script.hash}`,
    `style-src ${cspHash(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const csp = `${policy}; frame-ancestors ${frameAncestors.join(' ')}`;
  const html = [
    '<!doctype html>',
    `<html lang="en" data-theme="${content.theme}">`,
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // The address may carry an embed token: links followed from the page must not pass it on.
    '<meta name="referrer" content="no-referrer">',
    // No favicon request, from a server or, saved to disk, from anywhere.
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(content.title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    `<main>${content.body}</main>`,
    `${data}${script === null ? '' : `<script>${script.code}</script>`}`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { html, csp };
}
