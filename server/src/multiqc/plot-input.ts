/**
 * A MultiQC plot input as MultiQC wrote it (the JSON of `plot_input_data`), and what every plot's
 * data is built from: the samples to draw, the common header, and safe reads of its JSON.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Which samples to draw: all of them, or those the filters leave. */
export type SampleFilter = (sample: string) => boolean;

export interface PlotOptions {
  dataset: number;
  percentages: boolean;
  shown: SampleFilter;
}

export function plotTitle(input: JsonObject, anchor: string): string {
  const pconfig = objectAt(input, 'pconfig');
  return stringAt(pconfig, 'title') ?? anchor;
}

/** What every plot's data starts with: its title, the samples drawn and how many the filters left out, its axis labels. */
export function plotHeader(input: JsonObject, anchor: string, samples: string[], all: number) {
  const pconfig = objectAt(input, 'pconfig');
  return {
    title: plotTitle(input, anchor),
    samples,
    hidden_samples: Math.max(0, all - samples.length),
    x_label: stringAt(pconfig, 'xlab'),
    y_label: stringAt(pconfig, 'ylab'),
  };
}

/** A number from the report: MultiQC's NaN marker, text and non-finite values are null (JSON cannot carry NaN). */
export function numberOf(value: Json | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A CSS colour the report names (hex or `r,g,b`), or null. */
export function colorOf(value: string | null): string | null {
  if (value === null) return null;
  if (/^#[0-9a-fA-F]{3,8}$/.test(value)) return value;
  return /^\d{1,3},\s*\d{1,3},\s*\d{1,3}$/.test(value) ? `rgb(${value})` : null;
}

export function pick(value: Json | undefined, index: number): Json {
  const list = asArray(value);
  return list[index] ?? list[0] ?? null;
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const asObject = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});
export const asArray = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
export const objectAt = (value: JsonObject, key: string): JsonObject => asObject(value[key]);
export const stringAt = (value: JsonObject, key: string): string | null =>
  typeof value[key] === 'string' && value[key] !== '' ? value[key] : null;
