import type { DashboardComponent, DashboardFilter } from '@service/common';
import { describe, expect, it } from 'vitest';
import { filterChips } from '../src/dashboard/chips.js';

/*
 * Issue 28: a click on a category of the field's charts filters by that value, so its chip says
 * the value by its column ("Phylum = Acidobacteria"), never a range ("≥ Acidobacteria").
 */

const dc = 'dc1';
const figure = (component_id: string, fields: Record<string, unknown>) =>
  ({ component_id, type: 'figure', data_collection_id: dc, ...fields }) as DashboardComponent;

const COMPONENTS: DashboardComponent[] = [
  figure('heat', { chart: 'clustered_heatmap', row: 'Phylum', matrix_columns: ['s1', 's2'] }),
  figure('sun', { chart: 'sunburst', levels: ['Kingdom', 'Phylum'] }),
  figure('tm', { chart: 'treemap', levels: ['Kingdom', 'Phylum', 'Class'], title: 'Taxa' }),
  figure('flow', { chart: 'sankey', levels: ['Kingdom', 'Phylum', 'Class'] }),
  figure('sets', { chart: 'upset', sets: ['a', 'b', 'c'] }),
  figure('pairs', { chart: 'upset', item: 'asv', set: 'sample' }),
  figure('tree', { chart: 'tree', tip: 'asv' }),
  figure('dot', { chart: 'dot', x: 'group', y: 'term', size: 'n' }),
  figure('lolli', { chart: 'lollipop', x: 'taxon', y: 'lfc' }),
  figure('div', { chart: 'diverging_bar', x: 'taxon', y: 'lfc' }),
  figure('stack', { chart: 'stacked_bar', x: 'sample', color: 'Genus', y: 'count' }),
  figure('funnel', { chart: 'funnel', x: 'stage' }),
  figure('strip', { chart: 'strip', x: 'depth', y: 'sample' }),
  figure('onco', { chart: 'oncoplot', x: 'sample', y: 'gene', color: 'alteration' }),
  figure('gwas', { chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' }),
];

const chipOf = (filter: DashboardFilter) => filterChips([filter], COMPONENTS).map((chip) => chip.text)[0];

describe('the chips of the field charts’ clicks', () => {
  it('name a clicked heatmap row by its column and value', () => {
    expect(chipOf({ component_id: 'heat', value: ['Acidobacteria'] })).toBe('Phylum = Acidobacteria');
    expect(chipOf({ component_id: 'heat', value: ['Acidobacteria', 'Firmicutes'] })).toBe(
      'Phylum = Acidobacteria or Firmicutes',
    );
  });

  it('say a node’s path, a flow and an intersection level by level', () => {
    expect(chipOf({ component_id: 'sun', value: ['Bacteria', 'Firmicutes'] })).toBe(
      'Kingdom = Bacteria › Phylum = Firmicutes',
    );
    expect(chipOf({ component_id: 'tm', value: ['Bacteria'] })).toBe('Kingdom = Bacteria');
    expect(chipOf({ component_id: 'flow', value: [1, 'Firmicutes', 'Bacilli'] })).toBe(
      'Phylum = Firmicutes → Class = Bacilli',
    );
    expect(chipOf({ component_id: 'flow', value: [2, 'Bacilli'] })).toBe('Class = Bacilli');
    expect(chipOf({ component_id: 'sets', value: ['a', 'c'] })).toBe('sets = exactly a & c');
    expect(chipOf({ component_id: 'pairs', value: ['S1', 'S2'] })).toBe('sample = exactly S1 & S2');
  });

  it('list a clade’s tips and the categories of the ranked charts as values', () => {
    expect(chipOf({ component_id: 'tree', value: ['ASV1', 'ASV2', 'ASV3', 'ASV4', 'ASV5'] })).toBe(
      'asv = ASV1, ASV2, ASV3 or 2 more',
    );
    expect(chipOf({ component_id: 'dot', value: ['glycolysis'] })).toBe('term = glycolysis');
    expect(chipOf({ component_id: 'lolli', value: ['Bacillus'] })).toBe('taxon = Bacillus');
    expect(chipOf({ component_id: 'div', value: ['Bacillus', null] })).toBe('taxon = Bacillus or (empty)');
    expect(chipOf({ component_id: 'stack', value: ['Prevotella'] })).toBe('Genus = Prevotella');
    expect(chipOf({ component_id: 'funnel', value: ['filtered'] })).toBe('stage = filtered');
    expect(chipOf({ component_id: 'onco', value: ['TP53', 'KRAS'] })).toBe('gene = TP53 or KRAS');
  });

  it('say a brushed Manhattan plot’s genomic interval', () => {
    expect(chipOf({ component_id: 'gwas', value: ['2', 1_200_000, '5', 300] })).toBe('chr2:1,200,000 – chr5:300');
  });

  it('keep a brushed strip a range of its values', () => {
    expect(chipOf({ component_id: 'strip', value: [1.5, 3] })).toBe('depth: 1.5–3');
    expect(chipOf({ component_id: 'strip', value: [1.5, null] })).toBe('depth: ≥ 1.5');
  });
});
