import { z } from 'zod';
import { columnNameSchema } from '../queries.js';

/**
 * The fields of the maps (docs/dashboards.md "Maps"), spread into the figure component's schema
 * (dashboard-components.ts). Both draw on the world's countries of Natural Earth at 1:110 m
 * (the `world-atlas` package), bundled: no tile server.
 * - `choropleth`: `region` a column of country codes — ISO 3166-1 alpha-3, alpha-2 or numeric, or
 *   English names, mixed as they come — each country coloured by `agg` of `y` (a row count without
 *   `y`). Codes no country on the map has are counted and reported (`unmatched`), never dropped
 *   silently. A click on a country filters the others by the codes its rows hold.
 * - `point_map`: a point per row at `latitude`, `longitude`, coloured by `color?` and sized by
 *   `size?`; beyond `max_points` a density grid instead (`density`: rows counted per cell of
 *   latitude and longitude). Coordinates off the map (|latitude| > 90, |longitude| > 180) are
 *   counted and reported (`off_map`), never drawn. A rectangle brushed filters the others by
 *   `[longitude_low, longitude_high, latitude_low, latitude_high]`.
 */

/** The codes a choropleth's answer lists per country at most (the commonest); `code_count` says how many there are. */
export const MAX_REGION_CODES = 10;

export const MAP_CHARTS = ['choropleth', 'point_map'] as const;
export type MapChart = (typeof MAP_CHARTS)[number];

export const isMapChart = (chart: string): chart is MapChart => (MAP_CHARTS as readonly string[]).includes(chart);

export const mapFigureFields = {
  /** Choropleth: the column of country codes (alpha-3, alpha-2, numeric or English names). */
  region: columnNameSchema.optional(),
  /** Point map: the columns of each point's latitude and longitude, in degrees. */
  latitude: columnNameSchema.optional(),
  longitude: columnNameSchema.optional(),
};

type MapFigure = { chart: string; x?: string; z?: string } & {
  [field in keyof typeof mapFigureFields]?: z.infer<(typeof mapFigureFields)[field]>;
};

/** What each map needs besides the shape of its fields (zod checked those), and fields it does not read. */
export function checkMapFields(figure: MapFigure, context: z.RefinementCtx): void {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  if (figure.chart === 'choropleth' && figure.region === undefined) {
    issue('region', 'a choropleth needs region (a column of country codes or names)');
  }
  if (figure.chart === 'point_map') {
    if (figure.latitude === undefined) issue('latitude', 'a point map needs latitude');
    if (figure.longitude === undefined) issue('longitude', 'a point map needs longitude');
  }
  if (figure.region !== undefined && figure.chart !== 'choropleth') {
    issue('region', 'region is read by choropleth charts only');
  }
  for (const field of ['latitude', 'longitude'] as const) {
    if (figure[field] !== undefined && figure.chart !== 'point_map') {
      issue(field, `${field} is read by point_map charts only`);
    }
  }
}

/** Codes of the region column that name no country on the map: how many rows and values, and the commonest. */
export const unmatchedRegionsSchema = z.object({
  /** Rows whose code names no country drawn (nulls not counted: see `missing`). */
  rows: z.number().int(),
  /** Distinct such codes. */
  values: z.number().int(),
  /** The commonest of them (at most 10), most rows first. */
  examples: z.array(z.object({ code: z.unknown(), rows: z.number().int() })),
  /** Rows without a code (null). */
  missing: z.number().int(),
});
export type UnmatchedRegions = z.infer<typeof unmatchedRegionsSchema>;

/** A point map's rows with coordinates no place on the map has (|latitude| > 90 or |longitude| > 180). */
export const offMapPointsSchema = z.object({
  /** Rows with both coordinates, at least one out of range: counted here, not drawn. */
  rows: z.number().int(),
  /** The commonest such coordinates (at most 10), most rows first. */
  examples: z.array(z.object({ latitude: z.number(), longitude: z.number(), rows: z.number().int() })),
  /** Rows without a latitude or a longitude (null, or not a finite number). */
  missing: z.number().int(),
});
export type OffMapPoints = z.infer<typeof offMapPointsSchema>;

/**
 * A point map drawn as density: more points matched than its budget, so its rows are cells of a
 * grid of `cell` degrees (`x`, `y` each cell's centre, `n` its rows) instead of points.
 */
export const mapDensitySchema = z.object({
  /** The side of a cell, in degrees of latitude and longitude. */
  cell: z.number(),
  /** The points counted in the cells (all rows on the map). */
  points: z.number().int(),
});
export type MapDensity = z.infer<typeof mapDensitySchema>;

/** The answers of the maps besides `columns` and `rows` (whose roles dashboard-data.ts lists). */
export const mapFigureDataFields = {
  /** Choropleth: the codes that matched no country on the map. */
  unmatched: unmatchedRegionsSchema.optional(),
  /** Point map: rows whose coordinates are off the map, or missing. */
  off_map: offMapPointsSchema.optional(),
  /** Point map over its budget: the grid its rows count points in. */
  density: mapDensitySchema.optional(),
};

/**
 * A map's filter value: a choropleth's clicked countries as the list of their codes (as the
 * table holds them); a point map's rectangle `[longitude_low, longitude_high, latitude_low,
 * latitude_high]` (numbers, or null for an open end).
 */
export function mapFilterProblem(chart: MapChart, value: unknown): string | null {
  if (chart === 'choropleth') {
    return Array.isArray(value) && value.length > 0 ? null : 'a choropleth filters by a list of country codes';
  }
  const box =
    Array.isArray(value) && value.length === 4 && value.every((end) => end === null || typeof end === 'number');
  return box ? null : 'a point map filters by [longitude_low, longitude_high, latitude_low, latitude_high]';
}
