import {
  type CSSVariablesResolver,
  createTheme,
  defaultVariantColorsResolver,
  getPrimaryShade,
  luminance,
  parseThemeColor,
  type VariantColorsResolver,
} from '@mantine/core';

/** WCAG AA contrast for text (1.4.3); web/test/e2e checks the main screens with axe-core. */
const MIN_TEXT_CONTRAST = 4.5;
const contrastWithWhite = (color: string) => 1.05 / (luminance(color) + 0.05);

/**
 * Filled buttons and badges keep white text only on a shade dark enough for it: Mantine's filled
 * red, teal, blue or orange give 3.1–4.1:1. The first of the color's darker shades that reaches
 * 4.5:1 is used instead, and where none does (yellow, orange), the text turns black.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'filled') return colors;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  const shades = parsed.isThemeColor ? input.theme.colors[parsed.color] : undefined;
  if (shades === undefined) return colors;
  // A color named without a shade is filled with the primary shade, as Mantine does in the light scheme.
  for (let shade = parsed.shade ?? getPrimaryShade(input.theme, 'light'); shade < shades.length; shade++) {
    const background = shades[shade];
    if (background !== undefined && contrastWithWhite(background) >= MIN_TEXT_CONTRAST) {
      const hover = shades[Math.min(shade + 1, shades.length - 1)] ?? background;
      return { ...colors, background, hover, color: 'var(--mantine-color-white)' };
    }
  }
  return { ...colors, color: 'var(--mantine-color-black)' };
};

const PAGE_CONTROLS = { first: 'First page', previous: 'Previous page', next: 'Next page', last: 'Last page' } as const;

export const theme = createTheme({
  primaryColor: 'indigo',
  // Links and the primary color's text: indigo 6 is 4.3:1 on white, indigo 7 5.0:1.
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  variantColorResolver,
  components: {
    // Controls that Mantine leaves without an accessible name.
    Pagination: {
      defaultProps: {
        getControlProps: (control: keyof typeof PAGE_CONTROLS) => ({ 'aria-label': PAGE_CONTROLS[control] }),
      },
    },
    // A dialog's header is not the page's banner landmark, which `<header>` would be.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' }, attributes: { header: { role: 'none' } } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' }, attributes: { header: { role: 'none' } } } },
    // Mantine 9 keeps every Select's and MultiSelect's dropdown in the page while closed, with all
    // its options, and positions it on mount: on a dashboard's first render that was a hidden list
    // per filter widget and the version picker, each laid out and rendered twice (floating-ui's
    // flushSync). A dropdown is made when it opens; the input names it (aria-controls) only then.
    Combobox: { defaultProps: { keepMounted: false } },
    // A spinner is named ("Loading dashboards"); a name on a bare span is prohibited, on a status it is announced.
    Loader: { defaultProps: { role: 'status' } },
    FileInput: { defaultProps: { clearButtonProps: { 'aria-label': 'Clear the chosen files' } } },
    // A badge is one or two words: it never shrinks to "PU…" in a crowded row, it wraps the row instead.
    Badge: {
      styles: { root: { flexShrink: 0, maxWidth: 'none', overflow: 'visible' }, label: { overflow: 'visible' } },
    },
  },
});

/**
 * Text readable at WCAG AA contrast (4.5:1) where Mantine's defaults fall short:
 * - secondary ("dimmed") text and placeholders: Mantine's grays give 3.3:1 (2.1:1 for
 *   placeholders) on white and 4.0:1 on the dark body; these give 5.2:1 and 6.2:1 (4.7:1 and 5.4:1
 *   on shaded rows and cards);
 * - colored text (`c="red"`, `"teal"`, `"blue"`) and error messages: 3.1–4.1:1 on white, 3.5:1
 *   for red on the dark body; these give 5.5–7.0:1 and 6.6:1;
 * - the text of light badges, alerts and active navigation links in the light scheme, for the
 *   colors whose darkest shade is still too light on their pale background (teal 4.3:1, orange
 *   3.6:1, yellow 2.7:1, indigo 4.1:1 when hovered): 5.0–6.0:1.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': '#666d75',
    '--mantine-color-placeholder': '#666d75',
    '--mantine-color-error': '#c92a2a',
    '--mantine-color-red-text': '#c92a2a',
    '--mantine-color-teal-text': '#066649',
    '--mantine-color-blue-text': '#1864ab',
    '--mantine-color-indigo-light-color': '#2f44ad',
    '--mantine-primary-color-light-color': '#2f44ad',
    '--mantine-color-teal-light-color': '#066649',
    '--mantine-color-green-light-color': '#1f6b2f',
    '--mantine-color-lime-light-color': '#466f0a',
    '--mantine-color-orange-light-color': '#a93a08',
    '--mantine-color-yellow-light-color': '#8a5a00',
  },
  dark: {
    '--mantine-color-dimmed': '#a3a3a3',
    '--mantine-color-placeholder': '#a3a3a3',
    '--mantine-color-error': '#ff8787',
    '--mantine-color-red-text': '#ff8787',
  },
});
