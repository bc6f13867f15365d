import { Anchor, Code, List, Text, Title, type TitleOrder } from '@mantine/core';
import { headingAnchor, MARKDOWN_INLINE as INLINE, parseBlocks, safeHref, tabLinkTarget } from '@service/common';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';

export { parseBlocks, safeHref } from '@service/common';

/**
 * The markdown of text components, rendered as React elements (never as HTML, so raw HTML in the
 * text shows as text): headings, paragraphs, `-`/`*`/`1.` lists, fenced code blocks, and inline
 * `**bold**`, `*italic*`/`_italic_`, `` `code` `` and `[links](url)`. Links go only to `http(s):`,
 * `mailto:`, paths of this site, a heading (`#anchor`: headings carry their `headingAnchor`) or
 * another tab of the dashboard (`?tab=<tab_id>`); any other target leaves the text unlinked.
 */

function inline(text: string, key = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let rest = text;
  let n = 0;
  for (let match = INLINE.exec(rest); match !== null; match = INLINE.exec(rest)) {
    if (match.index > 0) out.push(rest.slice(0, match.index));
    const k = `${key}-${n++}`;
    const [, code, bold, italic, underscored, label, href] = match;
    if (code !== undefined) out.push(<Code key={k}>{code}</Code>);
    else if (bold !== undefined) out.push(<strong key={k}>{inline(bold, k)}</strong>);
    else if (italic !== undefined || underscored !== undefined)
      out.push(<em key={k}>{inline((italic ?? underscored) as string, k)}</em>);
    else {
      const target = safeHref(href as string);
      const tab = target === null ? null : tabLinkTarget(target);
      out.push(
        target === null ? (
          <span key={k}>{inline(label as string, k)}</span>
        ) : tab !== null ? (
          <TabLink key={k} tabId={tab}>
            {inline(label as string, k)}
          </TabLink>
        ) : (
          <Anchor
            key={k}
            href={target}
            {...(target.startsWith('/') || target.startsWith('#') ? {} : { target: '_blank', rel: 'noreferrer' })}
          >
            {inline(label as string, k)}
          </Anchor>
        ),
      );
    }
    rest = rest.slice(match.index + match[0].length);
  }
  if (rest !== '') out.push(rest);
  return out;
}

/** Opens another tab of the dashboard, keeping the filters and the rest of the address. */
function TabLink({ tabId, children }: { tabId: string; children: ReactNode }) {
  const [, setParams] = useSearchParams();
  return (
    <Anchor
      href={`?tab=${tabId}`}
      onClick={(event) => {
        event.preventDefault();
        setParams((current) => {
          const next = new URLSearchParams(current);
          next.set('tab', tabId);
          return next;
        });
      }}
    >
      {children}
    </Anchor>
  );
}

/** Markdown headings start one level below the dashboard's title. */
const headingOrder = (level: number) => Math.min(6, level + 1) as TitleOrder;

export function Markdown({ text }: { text: string }) {
  return (
    <>
      {parseBlocks(text).map((block, index) => {
        const key = `b${index}`;
        switch (block.kind) {
          case 'heading':
            return (
              <Title key={key} order={headingOrder(block.level)} mb="xs" id={headingAnchor(block.text)}>
                {inline(block.text, key)}
              </Title>
            );
          case 'list':
            return (
              <List key={key} type={block.ordered ? 'ordered' : 'unordered'} mb="sm">
                {block.items.map((item, itemIndex) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: list items have no identity beyond their place.
                  <List.Item key={itemIndex}>{inline(item, `${key}-${itemIndex}`)}</List.Item>
                ))}
              </List>
            );
          case 'code':
            return (
              <Code key={key} block mb="sm">
                {block.text}
              </Code>
            );
          default:
            return (
              <Text key={key} mb="sm">
                {inline(block.text, key)}
              </Text>
            );
        }
      })}
    </>
  );
}
