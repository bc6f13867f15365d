import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/**
 * Renders the Helm chart without `helm` (none on these machines), for tests only.
 *
 * It understands exactly the Go-template constructs that deploy/helm/service uses, with Go's and
 * Sprig's meaning, and throws on anything else, so a template that starts to need more fails the
 * test instead of rendering differently from Helm:
 * - `{{ … }}` with the `{{-` / `-}}` whitespace trims, and `{{/* comments *\/}}`;
 * - `define "name"`, `if` / `else`, `range $key, $value := …` (maps in sorted key order, as Go), `end`;
 * - operands: `.`, `.Values.a.b` (and `.Chart`, `.Release`), `$variable`, "strings", numbers;
 * - pipelines `a | b` (the value goes last, as in Go);
 * - functions: include, printf (%s %d %v), trunc, trimSuffix, default, quote, toJson, kindIs (string,
 *   bool, float64: Helm's values hold every number as a float64), toYaml, nindent, indent;
 * - printed numbers as Go prints a float64 (1073741824 → 1.073741824e+09).
 * A field the values do not have is an error (Helm would print nothing; here it is a typo to catch).
 * `.ci/run` renders the chart with the real `helm template` wherever `helm` exists.
 */

type Value = unknown;
type Scope = { dot: Value; vars: Record<string, Value> };
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'output'; pipeline: string }
  | { kind: 'if'; pipeline: string; whenTrue: Node[]; otherwise: Node[] }
  | { kind: 'range'; keyVar: string; valueVar: string; pipeline: string; body: Node[] };

interface Token {
  kind: 'text' | 'action';
  text: string;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < source.length) {
    const open = source.indexOf('{{', position);
    if (open === -1) {
      tokens.push({ kind: 'text', text: source.slice(position) });
      break;
    }
    const close = source.indexOf('}}', open);
    if (close === -1) throw new Error(`unclosed {{ at offset ${open}`);
    let text = source.slice(position, open);
    let action = source.slice(open + 2, close);
    if (action.startsWith('- ')) {
      text = text.replace(/\s+$/, '');
      action = action.slice(2);
    }
    let next = close + 2;
    if (action.endsWith(' -')) {
      action = action.slice(0, -2);
      next += source.slice(next).length - source.slice(next).replace(/^\s+/, '').length;
    }
    tokens.push({ kind: 'text', text });
    action = action.trim();
    if (!(action.startsWith('/*') && action.endsWith('*/'))) tokens.push({ kind: 'action', text: action });
    position = next;
  }
  return tokens;
}

function parse(tokens: Token[], defines: Map<string, Node[]>): Node[] {
  let index = 0;
  const block = (terminators: string[]): { nodes: Node[]; ended: string } => {
    const nodes: Node[] = [];
    while (index < tokens.length) {
      const token = tokens[index++]!;
      if (token.kind === 'text') {
        if (token.text !== '') nodes.push({ kind: 'text', text: token.text });
        continue;
      }
      const action = token.text;
      if (terminators.includes(action)) return { nodes, ended: action };
      const define = /^define "([^"]+)"$/.exec(action);
      const range = /^range \$(\w+), \$(\w+) := (.+)$/.exec(action);
      if (define !== null) defines.set(define[1]!, block(['end']).nodes);
      else if (action.startsWith('if ')) {
        const then = block(['else', 'end']);
        const otherwise = then.ended === 'else' ? block(['end']).nodes : [];
        nodes.push({ kind: 'if', pipeline: action.slice(3), whenTrue: then.nodes, otherwise });
      } else if (range !== null) {
        nodes.push({
          kind: 'range',
          keyVar: range[1]!,
          valueVar: range[2]!,
          pipeline: range[3]!,
          body: block(['end']).nodes,
        });
      } else if (/^(else|end|with|template|block)\b/.test(action) || action.includes(':=')) {
        throw new Error(`template construct not supported by this renderer: {{ ${action} }}`);
      } else nodes.push({ kind: 'output', pipeline: action });
    }
    if (terminators.length > 0) throw new Error(`missing {{ end }} (expected one of ${terminators.join(', ')})`);
    return { nodes, ended: '' };
  };
  return block([]).nodes;
}

/** Splits on a separator outside double-quoted strings. */
function splitOutsideQuotes(text: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"' && text[i - 1] !== '\\') quoted = !quoted;
    if (!quoted && separator.test(char)) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function isEmpty(value: Value): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/**
 * Go's `%v` of a number. Helm reads every number in the values as a float64, which `%v` prints in
 * the shortest form, switching to an exponent from 1e6 on (1073741824 → 1.073741824e+09).
 */
function goNumber(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return String(value);
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

function format(value: Value): string {
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  throw new Error(`cannot print ${JSON.stringify(value)} (use toYaml)`);
}

export class ChartRenderer {
  private readonly defines = new Map<string, Node[]>();

  constructor(sources: string[]) {
    for (const source of sources) parse(tokenize(source), this.defines);
  }

  render(source: string, root: Value): string {
    return this.renderNodes(parse(tokenize(source), this.defines), { dot: root, vars: {} });
  }

  private renderNodes(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      if (node.kind === 'text') out += node.text;
      else if (node.kind === 'output') out += format(this.pipeline(node.pipeline, scope));
      else if (node.kind === 'if') {
        out += this.renderNodes(isEmpty(this.pipeline(node.pipeline, scope)) ? node.otherwise : node.whenTrue, scope);
      } else {
        const over = this.pipeline(node.pipeline, scope);
        const entries: [Value, Value][] = Array.isArray(over)
          ? over.map((item, i) => [i, item])
          : Object.entries((over ?? {}) as Record<string, Value>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [key, value] of entries) {
          out += this.renderNodes(node.body, {
            dot: value,
            vars: { ...scope.vars, [node.keyVar]: key, [node.valueVar]: value },
          });
        }
      }
    }
    return out;
  }

  private pipeline(text: string, scope: Scope): Value {
    let piped: Value;
    let first = true;
    for (const command of splitOutsideQuotes(text, /\|/)) {
      const words = splitOutsideQuotes(command, /\s/);
      const [head, ...rest] = words;
      const args = rest.map((word) => this.operand(word, scope));
      if (!first) args.push(piped);
      if (/^[a-zA-Z]\w*$/.test(head!)) piped = this.call(head!, args);
      else if (words.length === 1 && first) piped = this.operand(head!, scope);
      else throw new Error(`cannot evaluate "${command}"`);
      first = false;
    }
    return piped;
  }

  private operand(word: string, scope: Scope): Value {
    if (word.startsWith('"')) return JSON.parse(word) as string;
    if (/^-?\d+$/.test(word)) return Number(word);
    if (word === '.') return scope.dot;
    if (word.startsWith('$')) {
      if (!(word.slice(1) in scope.vars)) throw new Error(`undefined variable ${word}`);
      return scope.vars[word.slice(1)];
    }
    if (word.startsWith('.')) {
      let value = scope.dot;
      for (const field of word.slice(1).split('.')) {
        if (value === null || typeof value !== 'object' || !(field in value)) {
          throw new Error(`${word}: no field "${field}"`);
        }
        value = (value as Record<string, Value>)[field];
      }
      return value;
    }
    throw new Error(`operand not supported by this renderer: ${word}`);
  }

  private call(name: string, args: Value[]): Value {
    const text = (value: Value) => format(value);
    const indent = (spaces: number, value: Value) =>
      text(value)
        .split('\n')
        .map((line) => ' '.repeat(spaces) + line)
        .join('\n');
    switch (name) {
      case 'include': {
        const body = this.defines.get(String(args[0]));
        if (body === undefined) throw new Error(`include: no template "${String(args[0])}"`);
        return this.renderNodes(body, { dot: args[1], vars: {} });
      }
      case 'printf': {
        const values = args.slice(1);
        return text(args[0]).replace(/%[sdv]/g, () => text(values.shift()));
      }
      case 'trunc':
        return text(args[1]).slice(0, Number(args[0]));
      case 'trimSuffix':
        return text(args[1]).endsWith(text(args[0])) ? text(args[1]).slice(0, -text(args[0]).length) : args[1];
      case 'default':
        return isEmpty(args[1]) ? args[0] : args[1];
      case 'quote':
        return JSON.stringify(text(args[0]));
      case 'toJson':
        return JSON.stringify(args[0]);
      case 'kindIs': {
        const kinds: Record<string, (value: Value) => boolean> = {
          string: (value) => typeof value === 'string',
          bool: (value) => typeof value === 'boolean',
          float64: (value) => typeof value === 'number',
        };
        const is = kinds[String(args[0])];
        if (is === undefined) throw new Error(`kindIs: kind not supported by this renderer: ${String(args[0])}`);
        return is(args[1]);
      }
      case 'toYaml':
        return stringifyYaml(args[0]).replace(/\n$/, '');
      case 'indent':
        return indent(Number(args[0]), args[1]);
      case 'nindent':
        return `\n${indent(Number(args[0]), args[1])}`;
      default:
        throw new Error(`function not supported by this renderer: ${name}`);
    }
  }
}

export const CHART_DIR = join(import.meta.dirname, '../../../deploy/helm/service');

function mergeValues(base: Value, override: Value): Value {
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return override;
  if (override === null || typeof override !== 'object' || Array.isArray(override)) return override;
  const merged: Record<string, Value> = { ...(base as Record<string, Value>) };
  for (const [key, value] of Object.entries(override)) merged[key] = mergeValues(merged[key], value);
  return merged;
}

export interface RenderedObject {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

/** `helm template <releaseName> deploy/helm/service` with values overridden as `-f` would. */
export function renderChart(releaseName: string, overrides: Record<string, unknown> = {}): RenderedObject[] {
  const chart = parseYaml(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  const values = mergeValues(parseYaml(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')), overrides);
  const templatesDir = join(CHART_DIR, 'templates');
  const files = readdirSync(templatesDir).sort();
  const sources = new Map(files.map((file) => [file, readFileSync(join(templatesDir, file), 'utf8')]));
  const renderer = new ChartRenderer([...sources.values()]);
  const root = {
    Values: values,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Release: { Name: releaseName, Namespace: 'default', Service: 'Helm' },
  };
  const objects: RenderedObject[] = [];
  for (const file of files.filter((name) => !name.startsWith('_') && name.endsWith('.yaml'))) {
    const rendered = renderer.render(sources.get(file)!, root);
    for (const document of parseAllDocuments(rendered)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}\n${rendered}`);
      const object = document.toJS() as Omit<RenderedObject, 'file'> | null;
      if (object !== null) objects.push({ file, ...object });
    }
  }
  return objects;
}
