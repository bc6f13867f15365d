import { DomainError } from '../../errors.js';

/**
 * A Newick tree (docs/dashboards.md "Phylogenetic trees"), parsed without recursion so that a
 * deep caterpillar tree cannot overflow the stack. Nodes are in preorder (a parent before its
 * children, the root first), as parallel arrays.
 */
export interface ParsedTree {
  /** A tip's label, or an internal node's when it is not a number (else null). */
  names: (string | null)[];
  /** The parent's index, -1 for the root. */
  parents: number[];
  lengths: (number | null)[];
  /** An internal node's numeric label (bootstrap or posterior support). */
  supports: (number | null)[];
  /** Number of tips under each node (1 for a tip). */
  tips: number[];
}

/** A collection's tree file, parsed (dashboards/data/tree-files.ts finds and caches it). */
export interface TreeInput {
  parsed: ParsedTree;
  /** Its path relative to its run folder. */
  file: string;
}

/** Nodes a tree may have (a tree of a million ASVs is not drawn). */
export const MAX_TREE_NODES = 400_000;

const DELIMITERS = new Set(['(', ')', '[', ']', ',', ':', ';']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

class Reader {
  position = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new DomainError('validation_failed', `not a Newick tree: ${message} (at character ${this.position + 1})`);
  }

  /** Skips blanks and [comments]. */
  skip(): void {
    const { text } = this;
    while (this.position < text.length) {
      const char = text[this.position] ?? '';
      if (/\s/.test(char)) this.position++;
      else if (char === '[') {
        const end = text.indexOf(']', this.position + 1);
        if (end < 0) this.fail('a comment [ is never closed');
        this.position = end + 1;
      } else return;
    }
  }

  peek(): string | undefined {
    this.skip();
    return this.text[this.position];
  }

  /** A label: quoted ('' inside for a quote), or the characters up to the next delimiter; '' when none. */
  label(): string {
    const { text } = this;
    if (this.peek() === "'") {
      let label = '';
      for (this.position++; ; ) {
        const end = text.indexOf("'", this.position);
        if (end < 0) this.fail('a quoted label is never closed');
        label += text.slice(this.position, end);
        this.position = end + 1;
        if (text[this.position] !== "'") return label;
        label += "'";
        this.position++;
      }
    }
    const start = this.position;
    while (this.position < text.length && !DELIMITERS.has(text[this.position] ?? '')) this.position++;
    return text.slice(start, this.position).trim();
  }

  /** `:length`, or null without one. */
  length(): number | null {
    if (this.peek() !== ':') return null;
    this.position++;
    this.skip();
    const start = this.position;
    while (this.position < this.text.length && /[-+0-9.eE]/.test(this.text[this.position] ?? '')) this.position++;
    const written = this.text.slice(start, this.position);
    if (!NUMBER.test(written)) this.fail(`the branch length ${JSON.stringify(written)} is not a number`);
    return Number(written);
  }
}

export function parseNewick(text: string): ParsedTree {
  const reader = new Reader(text);
  const tree: ParsedTree = { names: [], parents: [], lengths: [], supports: [], tips: [] };
  const add = (parent: number) => {
    if (tree.parents.length >= MAX_TREE_NODES) reader.fail(`more than ${MAX_TREE_NODES.toLocaleString('en-US')} nodes`);
    tree.parents.push(parent);
    tree.names.push(null);
    tree.lengths.push(null);
    tree.supports.push(null);
    tree.tips.push(0);
    return tree.parents.length - 1;
  };
  const labelled = (node: number, internal: boolean) => {
    const label = reader.label();
    if (internal && NUMBER.test(label)) tree.supports[node] = Number(label);
    else if (label !== '') tree.names[node] = label;
    tree.lengths[node] = reader.length();
  };
  const open: number[] = [];
  let current = add(-1);
  let expectNode = true;
  let clades = 0;
  for (;;) {
    const char = reader.peek();
    if (expectNode) {
      if (char === '(') {
        reader.position++;
        clades++;
        open.push(current);
        current = add(current);
      } else {
        labelled(current, false);
        expectNode = false;
      }
      continue;
    }
    if (char === ',' && open.length > 0) {
      reader.position++;
      current = add(open.at(-1) ?? -1);
      expectNode = true;
    } else if (char === ')' && open.length > 0) {
      reader.position++;
      current = open.pop() ?? 0;
      labelled(current, true);
    } else if (char === ';' && open.length === 0) {
      reader.position++;
      break;
    } else if (char === undefined || (char === ';' && open.length > 0)) {
      reader.fail(open.length > 0 ? `${open.length} clade(s) never closed` : 'it does not end in ;');
    } else {
      reader.fail(`unexpected ${JSON.stringify(char)}`);
    }
  }
  if (reader.peek() !== undefined) reader.fail('text after the closing ;');
  if (clades === 0) reader.fail('no clade (');
  // Preorder: children come after their parent, so one backward pass sums the tips.
  for (let node = tree.parents.length - 1; node >= 0; node--) {
    if (tree.tips[node] === 0) tree.tips[node] = 1;
    const parent = tree.parents[node] ?? -1;
    if (parent >= 0) tree.tips[parent] = (tree.tips[parent] ?? 0) + (tree.tips[node] ?? 0);
  }
  return tree;
}
