import {
  type CardAgg,
  type CardColor,
  type CardComparison,
  type CardFormat,
  type CardThreshold,
  COUNTING_AGGS,
} from '../card-fields.js';
import type { CardComponent } from '../dashboard-components.js';
import type { CardData } from '../dashboard-data.js';
import { formatCardValue } from './card-value.js';
import { formatCount } from './number.js';

/**
 * How a card is drawn, worked out once for the web app's card and the exported page, so both write
 * the same number, colour, change, sparkline and gauge (docs/dashboards.md "Cards").
 */

/** The number a value is, when it is one (DECIMAL and BIGINT aggregates may come as text). */
export function cardNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  return null;
}

const SI_PREFIXES: readonly [number, string][] = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** A number with exactly `decimals` decimals, grouped by thousands. */
function fixed(value: number, decimals: number): string {
  const [whole = '0', fraction] = Math.abs(value).toFixed(decimals).split('.');
  const grouped = formatCount(Number(whole)).replace(/^-/, '');
  const sign = value < 0 && Number(Math.abs(value).toFixed(decimals)) !== 0 ? '-' : '';
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** 12.3k, 4.56M (decimals 1 by default; 3 significant digits when not given). */
function si(value: number, decimals: number | undefined): string {
  const [size, prefix] = SI_PREFIXES.find(([limit]) => Math.abs(value) >= limit) ?? [1, ''];
  const scaled = value / size;
  const text = decimals === undefined ? String(Number(scaled.toPrecision(3))) : fixed(scaled, decimals);
  return `${text}${prefix}`;
}

/** A value written as the card's `format` says, or as cards write it without one. */
export function formatCardNumber(agg: CardAgg, value: unknown, format: CardFormat | undefined): string {
  const number = cardNumber(value);
  if (format === undefined || number === null) return withUnit(formatCardValue(agg, value), format?.unit);
  const { decimals, style = 'number' } = format;
  const text =
    style === 'percent'
      ? `${fixed(number * 100, decimals ?? 1)}%`
      : style === 'si'
        ? si(number, decimals)
        : decimals !== undefined
          ? fixed(number, decimals)
          : formatCardValue(agg, number);
  return withUnit(text, format.unit);
}

function withUnit(text: string, unit: string | undefined): string {
  if (unit === undefined || text === '—') return text;
  return unit === '%' ? `${text}%` : `${text} ${unit}`;
}

const HOLDS: Record<CardThreshold['op'], (value: number, limit: number) => boolean> = {
  '<': (value, limit) => value < limit,
  '<=': (value, limit) => value <= limit,
  '>': (value, limit) => value > limit,
  '>=': (value, limit) => value >= limit,
  '=': (value, limit) => value === limit,
};

/** The colour of the first threshold the number meets, or null (no rule holds, or no number). */
export function thresholdColor(thresholds: readonly CardThreshold[] | undefined, value: unknown): CardColor | null {
  const number = cardNumber(value);
  if (number === null || thresholds === undefined) return null;
  return thresholds.find((rule) => HOLDS[rule.op](number, rule.value))?.color ?? null;
}

/**
 * The hex colour of a palette name in each theme (Mantine's shades 9 and 4, darkened or lightened
 * where they fell short): dark on the light page, light on the dark one, so a coloured number or
 * change keeps a contrast of at least 4.5:1 (WCAG AA for small text) in both.
 */
export const CARD_COLOR_HEX: Record<CardColor, { light: string; dark: string }> = {
  red: { light: '#c92a2a', dark: '#ff8787' },
  orange: { light: '#c04010', dark: '#ffa94d' },
  yellow: { light: '#a85400', dark: '#ffd43b' },
  green: { light: '#277a37', dark: '#69db7c' },
  teal: { light: '#087f5b', dark: '#38d9a9' },
  blue: { light: '#1864ab', dark: '#4dabf7' },
  violet: { light: '#5f3dc4', dark: '#b197fc' },
  gray: { light: '#212529', dark: '#ced4da' },
};

/** The colour of a change that is good or bad news. */
export const TONE_COLOR: Record<'good' | 'bad', CardColor> = { good: 'green', bad: 'red' };

export interface ComparisonView {
  arrow: '▲' | '▼' | '=';
  /** "+12.5%" (or the absolute change when the reference is 0). */
  change: string;
  /** Whether the change is good news, by the comparison's `better`. */
  tone: 'good' | 'bad' | 'neutral';
  /** "vs version 3", "vs target". */
  against: string;
}

/** The change a card shows, or null when there is nothing to compare with. */
export function comparisonView(
  agg: CardAgg,
  comparison: CardComparison | undefined,
  data: CardData['comparison'],
  format?: CardFormat,
): ComparisonView | null {
  if (comparison === undefined || data === undefined || data.change === null) return null;
  const { change, change_pct } = data;
  const arrow = change > 0 ? '▲' : change < 0 ? '▼' : '=';
  const better = comparison.better ?? 'higher';
  const tone = change === 0 ? 'neutral' : change > 0 === (better === 'higher') ? 'good' : 'bad';
  const sign = change > 0 ? '+' : '';
  const text =
    change_pct === null ? `${sign}${formatCardNumber(agg, change, format)}` : `${sign}${fixed(change_pct, 1)}%`;
  const against =
    comparison.against === 'reference'
      ? `vs ${comparison.label ?? formatCardNumber(agg, comparison.value, format)}`
      : `vs version ${data.version ?? '—'}`;
  return { arrow, change: text, tone, against };
}

/** An SVG path through the sparkline's points in a `width` × `height` box (gaps at nulls), or null. */
export function sparklinePath(points: readonly { value: number | null }[], width: number, height: number) {
  const values = points.map((point) => point.value).filter((value): value is number => value !== null);
  if (values.length < 2) return null;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const step = width / (points.length - 1);
  const y = (value: number) => (high === low ? height / 2 : height - ((value - low) / (high - low)) * height);
  let path = '';
  let drawing = false;
  points.forEach((point, index) => {
    if (point.value === null) {
      drawing = false;
      return;
    }
    path += `${drawing ? 'L' : 'M'}${round(index * step)},${round(y(point.value))}`;
    drawing = true;
  });
  return path;
}

const round = (value: number) => Math.round(value * 10) / 10;

export interface GaugeView {
  /** 0–1: where the number sits between min and max (clamped). */
  fraction: number;
  min: number;
  max: number;
  /** SVG paths in a 100 × 55 box: the whole half circle, and its filled part. */
  track: string;
  fill: string;
}

/** A half-circle gauge of the number from `min` (default 0) to `max` (default the whole table's number). */
export function gaugeView(card: CardComponent, data: CardData): GaugeView | null {
  const value = cardNumber(data.value);
  const min = card.gauge?.min ?? 0;
  const max = card.gauge?.max ?? cardNumber(data.unfiltered_value);
  if (card.gauge === undefined || value === null || max === null || max <= min) return null;
  const fraction = Math.min(1, Math.max(0, (value - min) / (max - min)));
  return { fraction, min, max, track: arc(1), fill: fraction === 0 ? '' : arc(fraction) };
}

/** The half circle of radius 45 centred at (50, 50), from its left end to `fraction` of the way round. */
function arc(fraction: number): string {
  const angle = Math.PI * (1 - fraction);
  const x = round(50 + 45 * Math.cos(angle));
  const y = round(50 - 45 * Math.sin(angle));
  return `M5,50 A45,45 0 0 1 ${x},${y}`;
}

/** Units a column name may end with (`body_mass_g`, `duration_ms`), as a value is followed by them. */
const UNIT_SUFFIXES: Record<string, string> = {
  g: 'g',
  kg: 'kg',
  mg: 'mg',
  mm: 'mm',
  cm: 'cm',
  m: 'm',
  km: 'km',
  s: 's',
  ms: 'ms',
  min: 'min',
  h: 'h',
  pct: '%',
  percent: '%',
  usd: 'USD',
  eur: 'EUR',
  bytes: 'bytes',
  mb: 'MB',
  gb: 'GB',
};

/**
 * The unit a card's values carry: the one its column's name ends with, when the card's title does
 * not already say it ("Mean mass" over `body_mass_g` → "g"; no title: the column's name says it).
 */
export function cardUnit(component: CardComponent): string | null {
  if (!component.title || component.column === undefined) return null;
  if (COUNTING_AGGS.includes(component.agg) || component.agg === 'variance') return null;
  const suffix = /_([a-z]+)$/i.exec(component.column)?.[1]?.toLowerCase();
  const unit = suffix !== undefined && Object.hasOwn(UNIT_SUFFIXES, suffix) ? UNIT_SUFFIXES[suffix] : undefined;
  if (unit === undefined) return null;
  // Units are letters or "%": nothing to escape.
  return new RegExp(`(^|[^\\p{L}])${unit}($|[^\\p{L}])`, 'iu').test(component.title) ? null : unit;
}

/** The card's number format: its own, or else the unit its column's name carries. */
export function cardFormatOf(card: CardComponent): CardFormat | undefined {
  if (card.format !== undefined) return card.format;
  const unit = cardUnit(card);
  return unit === null ? undefined : { unit };
}
