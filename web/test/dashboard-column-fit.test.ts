import type { TableColumn } from '@service/common';
import { describe, expect, it } from 'vitest';
import {
  cardColumnKinds,
  columnKind,
  figureRoles,
  fittingColumns,
  WIDGET_KINDS,
} from '../src/dashboard/edit/column-fit.js';

const column = (name: string, type: string): TableColumn => ({ name, type, nullable: true, description: null });
const COLUMNS = [
  column('sample', 'string'),
  column('mass', 'long'),
  column('ratio', 'decimal(10,2)'),
  column('day', 'date'),
  column('male', 'boolean'),
  column('tags', 'array<string>'),
];
const names = (kinds: Parameters<typeof fittingColumns>[1]) => fittingColumns(COLUMNS, kinds).map((o) => o.value);

describe("the builder's column choices", () => {
  it('classifies Delta types', () => {
    expect(COLUMNS.map((c) => columnKind(c.type))).toEqual([
      'text',
      'numeric',
      'numeric',
      'temporal',
      'boolean',
      'nested',
    ]);
  });

  it('offers a map’s fields only the columns whose type fits them', () => {
    const choropleth = figureRoles('choropleth', 'sum');
    expect(names(choropleth.region?.kinds ?? [])).toEqual(['sample', 'mass', 'ratio']);
    expect(names(choropleth.y?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(figureRoles('choropleth', 'count').y?.required).toBe(false);
    const points = figureRoles('point_map', 'count');
    expect(names(points.latitude?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(names(points.longitude?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(points.latitude?.required && points.longitude?.required).toBe(true);
    expect(points.region).toBeUndefined();
  });

  it('offers each role of a chart only the columns whose type fits it', () => {
    const scatter = figureRoles('scatter', 'count');
    expect(names(scatter.x?.kinds ?? [])).toEqual(['mass', 'ratio', 'day']);
    expect(names(scatter.size?.kinds ?? [])).toEqual(['mass', 'ratio']);
    const bar = figureRoles('bar', 'mean');
    expect(names(bar.x?.kinds ?? [])).toEqual(['sample', 'mass', 'ratio', 'day', 'male']);
    expect(names(bar.y?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(bar.y?.required).toBe(true);
    expect(figureRoles('bar', 'count').y?.required).toBe(false);
    expect(names(figureRoles('bar', 'count_distinct').y?.kinds ?? [])).toContain('sample');
    expect(figureRoles('histogram', 'count').y).toBeUndefined();
    expect(figureRoles('pie', 'count').color?.required).toBe(true);
    // Nested columns are never offered.
    expect(names(figureRoles('heatmap', 'count').x?.kinds ?? [])).not.toContain('tags');
  });

  it('offers the field charts numbers, and any value for labels and chromosomes', () => {
    const volcano = figureRoles('volcano', 'count');
    expect(names(volcano.x?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(names(volcano.y?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(volcano.label?.required).toBe(false);
    expect(names(volcano.label?.kinds ?? [])).toContain('sample');
    expect(figureRoles('ma', 'count').p?.required).toBe(false);
    const manhattan = figureRoles('manhattan', 'count');
    expect(names(manhattan.chromosome?.kinds ?? [])).toEqual(['sample', 'mass', 'ratio']);
    expect(names(manhattan.position?.kinds ?? [])).toEqual(['mass', 'ratio']);
    expect(Object.keys(figureRoles('qq', 'count'))).toEqual(['y']);
  });

  it('offers cards and filter widgets the columns they work on', () => {
    expect(names(cardColumnKinds('mean'))).toEqual(['mass', 'ratio']);
    expect(names(cardColumnKinds('max'))).toEqual(['mass', 'ratio', 'day']);
    expect(names(WIDGET_KINDS.range)).toEqual(['mass', 'ratio']);
    expect(names(WIDGET_KINDS.date_range)).toEqual(['day']);
    expect(names(WIDGET_KINDS.switch)).toEqual(['male']);
    expect(names(WIDGET_KINDS.search)).toEqual(['sample']);
  });
});
