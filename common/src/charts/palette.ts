/**
 * Chart colours from Mantine's default palette, so a figure sits in the app's light or dark scheme
 * like its other components (text, dimmed text and borders as in web/src/theme.ts). The background
 * stays transparent: the card behind the chart gives it.
 */
export type ChartTheme = 'light' | 'dark';

export interface ChartPalette {
  text: string;
  dimmed: string;
  axisLine: string;
  splitLine: string;
  tooltipBackground: string;
  /** Series, in order: blue, orange, teal, grape, red, yellow, cyan, pink, lime, indigo, violet, green. */
  series: string[];
  /** The folded "other" category. */
  other: string;
  /** Heatmap cells, low to high. */
  sequential: string[];
}

export const PALETTES: Record<ChartTheme, ChartPalette> = {
  light: {
    text: '#000000',
    dimmed: '#666d75',
    axisLine: '#ced4da',
    splitLine: '#e9ecef',
    tooltipBackground: '#ffffff',
    // Shade 6 of each colour.
    series: [
      '#228be6',
      '#fd7e14',
      '#12b886',
      '#be4bdb',
      '#fa5252',
      '#fab005',
      '#15aabf',
      '#e64980',
      '#82c91e',
      '#4c6ef5',
      '#7950f2',
      '#40c057',
    ],
    other: '#adb5bd',
    // blue 0, 2, 4, 6, 8, 9
    sequential: ['#e7f5ff', '#a5d8ff', '#4dabf7', '#228be6', '#1971c2', '#1864ab'],
  },
  dark: {
    text: '#c9c9c9',
    dimmed: '#a3a3a3',
    axisLine: '#424242',
    splitLine: '#2e2e2e',
    tooltipBackground: '#2e2e2e',
    // Shade 4: the darker shades lose contrast on the dark body.
    series: [
      '#4dabf7',
      '#ffa94d',
      '#38d9a9',
      '#da77f2',
      '#ff8787',
      '#ffd43b',
      '#3bc9db',
      '#f783ac',
      '#a9e34b',
      '#748ffc',
      '#9775fa',
      '#69db7c',
    ],
    other: '#696969',
    // blue 9, 8, 6, 4, 2, 0: dark cells fade into the body, bright ones stand out.
    sequential: ['#1864ab', '#1971c2', '#228be6', '#4dabf7', '#a5d8ff', '#e7f5ff'],
  },
};
