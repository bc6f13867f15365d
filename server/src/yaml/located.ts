import { type Document, isNode, LineCounter, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { DomainError, type FieldProblem, formatPath } from '../errors.js';

/** A YAML file parsed and validated, with a way to point at the line and column of any path in it. */
export interface LocatedYaml<T> {
  value: T;
  /** Adds `line`/`column` to problems whose path names a place in the document. */
  locate(problems: FieldProblem[]): FieldProblem[];
}

/**
 * The document as plain data. Aliases that expand past a few hundred nodes (a "billion laughs"
 * document) are refused instead of built: the yaml library stops at `maxAliasCount`.
 */
function expandAliases(document: Document, lineCounter: LineCounter, what: string): unknown {
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let position = { line: 1, col: 1 };
    visit(document, {
      Alias(_key, node) {
        if (!node.range) return undefined;
        position = lineCounter.linePos(node.range[0]);
        return visit.BREAK;
      },
    });
    throw new DomainError('validation_failed', `the ${what} is not valid YAML`, [
      {
        path: '',
        message: `${error.message}: its aliases expand too much`,
        line: position.line,
        column: position.col,
      },
    ]);
  }
}

/** A YAML document as plain data, not yet validated, with the way to locate paths in it. */
export interface ReadYaml {
  raw: unknown;
  locate(problems: FieldProblem[]): FieldProblem[];
}

/**
 * Reads YAML without validating it: syntax errors (after which nothing else can be said) come back
 * as 400 `validation_failed`, each naming its line and column.
 */
export function readLocatedYaml(text: string, what: string): ReadYaml {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new DomainError(
      'validation_failed',
      `the ${what} is not valid YAML`,
      document.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return {
          path: '',
          message: error.message.split('\n')[0] ?? error.message,
          line: position.line,
          column: position.col,
        };
      }),
    );
  }

  const locate = (problems: FieldProblem[]): FieldProblem[] =>
    problems.map((problem) => {
      const keys = problem.path
        .split(/\.|\[(\d+)\]/)
        .filter((part) => part !== undefined && part !== '')
        .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      // Walk up from the exact node until one exists (e.g. a missing key points at its parent).
      for (let depth = keys.length; depth >= 0; depth--) {
        const node = depth === 0 ? document.contents : document.getIn(keys.slice(0, depth), true);
        if (isNode(node) && node.range) {
          const position = lineCounter.linePos(node.range[0]);
          return { ...problem, line: position.line, column: position.col };
        }
      }
      return problem;
    });
  return { raw: expandAliases(document, lineCounter, what), locate };
}

/** A schema's issues as field problems: an unknown key is one problem per key. */
export function schemaProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: formatPath(undefined, [...issue.path, key]),
        message: 'unknown field',
      }));
    }
    return [{ path: formatPath(undefined, issue.path), message: issue.message }];
  });
}

/**
 * Parses YAML and validates it with a shared schema. Syntax errors and schema violations both come
 * back as 400 `validation_failed`, each error naming its path, line, column and the rule broken
 * (`what` names the file in messages: "the project definition", "the dashboard").
 */
export function parseLocatedYaml<S extends z.ZodType>(text: string, schema: S, what: string): LocatedYaml<z.output<S>> {
  const { raw, locate } = readLocatedYaml(text, what);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new DomainError(
      'validation_failed',
      `the ${what} does not follow the schema`,
      locate(schemaProblems(parsed.error)),
    );
  }
  return { value: parsed.data, locate };
}
