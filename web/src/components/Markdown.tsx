import { Anchor, Code, List, Text, Title, type TitleOrder } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * The markdown of text components, rendered as React elements (never as HTML, so raw HTML in the
 * text shows as text): headings, paragraphs, `-`/`*`/`1.` lists, fenced code blocks, and inline
 * `**bold**`, `*italic*`/`_italic_`, `` `code` `` and `[links](url)`. Links go only to `http(s):`,
 * `mailto:` or paths of this site; any other target leaves the text unlinked.
 */

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string };

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const UNORDERED = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;
const FENCE = /^\s*(```|~~~)/;

export function parseBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      endParagraph();
      const code: string[] = [];
      for (
        index++;
        index < lines.length && !(lines[index] as string).trimStart().startsWith(fence[1] as string);
        index++
      )
        code.push(lines[index] as string);
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    const item = UNORDERED.exec(line) ?? ORDERED.exec(line);
    if (line.trim() === '') endParagraph();
    else if (heading) {
      endParagraph();
      blocks.push({ kind: 'heading', level: (heading[1] as string).length, text: heading[2] as string });
    } else if (item) {
      endParagraph();
      const ordered = ORDERED.test(line);
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'list' && last.ordered === ordered) last.items.push(item[1] as string);
      else blocks.push({ kind: 'list', ordered, items: [item[1] as string] });
    } else paragraph.push(line.trim());
  }
  endParagraph();
  return blocks;
}

/** A link target we follow: web and mail addresses, and paths of this site (not `//host`). */
export function safeHref(href: string): string | null {
  if (/^(https?:|mailto:)/i.test(href)) return href;
  if (href.startsWith('/') && !href.startsWith('//')) return href;
  return null;
}

const INLINE = /`([^`]+)`|\*\*(.+?)\*\*|\*(.+?)\*|_(.+?)_|\[([^\]]+)\]\(([^)\s]+)\)/;

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
      out.push(
        target === null ? (
          <span key={k}>{inline(label as string, k)}</span>
        ) : (
          <Anchor key={k} href={target} {...(target.startsWith('/') ? {} : { target: '_blank', rel: 'noreferrer' })}>
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
              <Title key={key} order={headingOrder(block.level)} mb="xs">
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
