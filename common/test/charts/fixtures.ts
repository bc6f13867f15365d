import type { FigureComponent, FigureData } from '../../src/index.js';

/** Figures over a penguins table and their answers, shaped as POST /dashboards/{id}/data gives them. */
const base = { type: 'figure', data_collection_id: 'penguins' } as const;

const col = (name: string, type: string, column: string | null) => ({ name, type, column });

export const scatterFigure: FigureComponent = {
  ...base,
  component_id: 'bills',
  title: 'Bills',
  chart: 'scatter',
  x: 'bill_length_mm',
  y: 'bill_depth_mm',
  color: 'species',
};
export const scatterData: FigureData = {
  columns: [
    col('x', 'double', 'bill_length_mm'),
    col('y', 'double', 'bill_depth_mm'),
    col('color', 'string', 'species'),
  ],
  rows: [
    [39.1, 18.7, 'Adelie'],
    [46.5, 17.9, 'Chinstrap'],
    [40.3, 18, 'Adelie'],
    [50, 15.2, 'Gentoo'],
    [null, null, null],
  ],
  sampled: true,
  total_rows: 12000,
};

export const lineFigure: FigureComponent = {
  ...base,
  component_id: 'by_day',
  title: 'Mass by day',
  chart: 'line',
  x: 'observed_on',
  y: 'body_mass_g',
  agg: 'mean',
};
export const lineData: FigureData = {
  columns: [col('x', 'date', 'observed_on'), col('y', 'double', 'body_mass_g')],
  rows: [
    ['2007-11-10', 3750.333333333],
    ['2007-11-11', 3800],
    ['2007-11-12', 4201.754385964912],
  ],
  sampled: false,
  total_rows: 300,
};

export const barFigure: FigureComponent = {
  ...base,
  component_id: 'islands',
  title: 'Penguins per island',
  chart: 'bar',
  x: 'island',
  color: 'sex',
  max_categories: 2,
};
export const barData: FigureData = {
  columns: [
    col('x', 'string', 'island'),
    col('color', 'string', 'sex'),
    col('y', 'long', null),
    col('other', 'boolean', null),
  ],
  rows: [
    ['Biscoe', 'female', 80, false],
    ['Biscoe', 'male', 83, false],
    ['Dream', 'female', 61, false],
    ['Dream', null, 1, false],
    [null, 'male', 23, true],
    [null, 'female', 28, true],
  ],
  sampled: false,
  total_rows: 276,
};

export const histogramFigure: FigureComponent = {
  ...base,
  component_id: 'masses',
  chart: 'histogram',
  x: 'body_mass_g',
  bins: 3,
  log_y: true,
};
export const histogramData: FigureData = {
  columns: [col('x_low', 'double', 'body_mass_g'), col('x_high', 'double', 'body_mass_g'), col('count', 'long', null)],
  rows: [
    [2700, 3900, 150],
    [3900, 5100, 120],
    [5100, 6300, 72],
  ],
  sampled: false,
  total_rows: 342,
};

export const boxFigure: FigureComponent = {
  ...base,
  component_id: 'mass_box',
  title: 'Mass by species',
  chart: 'box',
  x: 'species',
  y: 'body_mass_g',
};
const boxColumns = ['count', 'mean', 'min', 'q1', 'median', 'q3', 'max', 'whisker_low', 'whisker_high'];
export const boxData: FigureData = {
  columns: [col('x', 'string', 'species'), ...boxColumns.map((name) => col(name, 'double', 'body_mass_g'))],
  rows: [
    ['Adelie', 151, 3700.662251655629, 2850, 3350, 3700, 4000, 4775, 2850, 4775],
    ['Gentoo', 123, 5076.016260162602, 3950, 4700, 5000, 5500, 6300, 3950, 6300],
    ['Chinstrap', 68, 3733.0882352941176, 2700, 3487.5, 3700, 3950, 4800, 2900, 4550],
  ],
  sampled: false,
  total_rows: 342,
};

export const violinFigure: FigureComponent = {
  ...base,
  component_id: 'mass_violin',
  chart: 'violin',
  x: 'species',
  y: 'body_mass_g',
  bins: 3,
};
export const violinData: FigureData = {
  columns: [
    col('x', 'string', 'species'),
    col('y_low', 'double', 'body_mass_g'),
    col('y_high', 'double', 'body_mass_g'),
    col('count', 'long', null),
  ],
  rows: [
    ['Adelie', 2700, 3900, 100],
    ['Adelie', 3900, 5100, 51],
    ['Gentoo', 3900, 5100, 80],
    ['Gentoo', 5100, 6300, 43],
  ],
  sampled: false,
  total_rows: 274,
};

export const heatmapFigure: FigureComponent = {
  ...base,
  component_id: 'mass_heat',
  chart: 'heatmap',
  x: 'island',
  y: 'flipper_length_mm',
  color: 'body_mass_g',
  agg: 'mean',
};
export const heatmapData: FigureData = {
  columns: [col('x', 'string', 'island'), col('y', 'long', 'flipper_length_mm'), col('value', 'double', 'body_mass_g')],
  rows: [
    ['Dream', 200, 3900.5],
    ['Biscoe', 180, 3500],
    ['Biscoe', 200, 4700.25],
    ['Dream', 180, 3300],
  ],
  sampled: false,
  total_rows: 342,
};

export const pieFigure: FigureComponent = {
  ...base,
  component_id: 'species_pie',
  title: 'Species',
  chart: 'pie',
  color: 'species',
  max_categories: 2,
};
export const pieData: FigureData = {
  columns: [col('color', 'string', 'species'), col('y', 'long', null), col('other', 'boolean', null)],
  rows: [
    ['Adelie', 152, false],
    ['Gentoo', 124, false],
    [null, 68, true],
  ],
  sampled: false,
  total_rows: 344,
};
