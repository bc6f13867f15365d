// @vitest-environment jsdom
import { MantineProvider } from '@mantine/core';
import { headingAnchor } from '@service/common';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Markdown, parseBlocks, safeHref } from '../src/components/Markdown.js';
import { placeComponents } from '../src/dashboard/layout.js';
import { installMantineShims } from './support/jsdom.js';

beforeAll(installMantineShims);
afterEach(cleanup);

describe('markdown of text components', () => {
  it('splits headings, paragraphs, lists and fenced code', () => {
    expect(
      parseBlocks('# Title #\nfirst line\nsecond line\n\n- a\n* b\n1. one\n2) two\n```\n# not a heading\n```\nafter'),
    ).toEqual([
      { kind: 'heading', level: 1, text: 'Title' },
      { kind: 'paragraph', text: 'first line second line' },
      { kind: 'list', ordered: false, items: ['a', 'b'] },
      { kind: 'list', ordered: true, items: ['one', 'two'] },
      { kind: 'code', text: '# not a heading' },
      { kind: 'paragraph', text: 'after' },
    ]);
  });

  it('follows only web, mail and same-site links', () => {
    expect(safeHref('https://example.org/a')).toBe('https://example.org/a');
    expect(safeHref('mailto:ada@example.org')).toBe('mailto:ada@example.org');
    expect(safeHref('/projects')).toBe('/projects');
    expect(safeHref('//evil.example')).toBeNull();
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
  });

  it('never links a "path" that leaves the site, as the sign-in next check refuses it (issue 23, finding 8)', () => {
    for (const href of ['/\\evil.example', '/\\/evil.example', '/..//evil.example', '/a\tb', '/\t/evil.example']) {
      expect(safeHref(href), href).toBeNull();
    }
    expect(safeHref('/projects/../dashboards/3')).toBe('/dashboards/3');
    const { container } = render(
      <MantineProvider>
        <Markdown text={'[ours](/projects) and [theirs](/\\evil.example) and [dots](/..//evil.example)'} />
      </MantineProvider>,
    );
    expect([...container.querySelectorAll('a')].map((anchor) => anchor.getAttribute('href'))).toEqual(['/projects']);
    expect(container.textContent).toContain('theirs');
  });

  it('renders emphasis, code and links as elements, and raw HTML as text', () => {
    const { container } = render(
      <MantineProvider>
        <Markdown
          text={
            '## Penguins\nSome **bold _and italic_** `code`, [docs](https://example.org) and [bad](javascript:alert(1)) <img src=x onerror=alert(1)>'
          }
        />
      </MantineProvider>,
    );
    expect(screen.getByRole('heading', { level: 3, name: 'Penguins' })).toBeTruthy();
    expect(container.querySelector('strong em')?.textContent).toBe('and italic');
    expect(container.querySelector('code')?.textContent).toBe('code');
    expect(screen.getByRole('link', { name: 'docs' }).getAttribute('href')).toBe('https://example.org');
    expect(screen.queryByRole('link', { name: 'bad' })).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
  });
});

/** The address the router is at, as the last render saw it. */
const seen = { search: '' };
function Where() {
  seen.search = useLocation().search;
  return null;
}

describe('anchors and tab links in text', () => {
  it('gives headings anchors, follows #anchor links in the page and ?tab= links to another tab', () => {
    expect(headingAnchor('Alpha **diversity** (Shannon)')).toBe('alpha-diversity-shannon');
    expect(safeHref('#alpha-diversity')).toBe('#alpha-diversity');
    expect(safeHref('?tab=details')).toBe('?tab=details');
    expect(safeHref('?tab=details&filters=x')).toBeNull();
    expect(safeHref('#not an anchor')).toBeNull();
    seen.search = '';
    const { container } = render(
      <MantineProvider>
        <MemoryRouter initialEntries={['/dashboards/d1?filters=%5B%5D']}>
          <Markdown text={'## Alpha diversity\nSee [below](#alpha-diversity) or [the details](?tab=details).'} />
          <Where />
        </MemoryRouter>
      </MantineProvider>,
    );
    expect(container.querySelector('h3')?.id).toBe('alpha-diversity');
    const below = screen.getByRole('link', { name: 'below' });
    expect(below.getAttribute('href')).toBe('#alpha-diversity');
    expect(below.getAttribute('target')).toBeNull();
    fireEvent.click(screen.getByRole('link', { name: 'the details' }));
    // The tab is opened in place: the filters stay in the address.
    expect(new URLSearchParams(seen.search).get('tab')).toBe('details');
    expect(new URLSearchParams(seen.search).get('filters')).toBe('[]');
  });
});

describe('dashboard layout', () => {
  const text = { component_id: 'a', type: 'text' as const, markdown: 'x' };
  const table = {
    component_id: 'b',
    type: 'table' as const,
    data_collection_id: 'dc',
    page_size: 25,
    sort: [],
  };
  const loose = { component_id: 'c', type: 'text' as const, markdown: 'y' };

  it('orders laid-out components top to bottom, left to right, and puts the others below, full width', () => {
    const placed = placeComponents({
      components: [text, table, loose],
      layout: [
        { component_id: 'b', x: 6, y: 0, w: 6, h: 8 },
        { component_id: 'a', x: 0, y: 0, w: 6, h: 3 },
      ],
    });
    expect(placed.map(({ component, item }) => [component.component_id, item.x, item.y, item.w, item.h])).toEqual([
      ['a', 0, 0, 6, 3],
      ['b', 6, 0, 6, 8],
      ['c', 0, 8, 12, 2],
    ]);
  });
});
