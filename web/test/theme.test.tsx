// @vitest-environment jsdom
import { MantineProvider, MultiSelect, Select } from '@mantine/core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { theme } from '../src/theme.js';
import { installMantineShims } from './support/jsdom.js';

beforeAll(installMantineShims);
afterEach(cleanup);

const VALUES = Array.from({ length: 500 }, (_, index) => `value ${index}`);

describe("the app's theme", () => {
  // Mantine 9 kept every closed dropdown in the page, all its options rendered and positioned on mount.
  it.each([
    ['Select', () => <Select label="Pick" data={VALUES} />],
    ['MultiSelect', () => <MultiSelect label="Pick" data={VALUES} />],
  ])('renders a %s dropdown only once it opens', (_kind, Control) => {
    render(
      <MantineProvider theme={theme}>
        <Control />
      </MantineProvider>,
    );
    expect(screen.queryAllByRole('option', { hidden: true })).toHaveLength(0);
    const input = screen.getByLabelText('Pick');
    // Nothing named by the input while the list is not in the page (axe: aria-valid-attr-value).
    expect(input.getAttribute('aria-controls')).toBeNull();
    fireEvent.click(input);
    expect(screen.getAllByRole('option', { hidden: true }).length).toBeGreaterThan(0);
  });
});
