import type { FigureComponent, FigureData } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { figureAnswer, numberRole, type Role, roleOf } from './figure-rows.js';
import type { TreeInput } from './newick.js';

/**
 * A phylogenetic tree (docs/dashboards.md "Phylogenetic trees"): every node of the Newick file in
 * preorder, its tips joined to the rows under the filters by the `tip` column. A tip found among
 * them is `matched` and takes its row's `color` (the lowest, when several rows name it); the
 * others are drawn uncoloured and counted in `unmatched_tips`.
 */
export async function treeData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  tree: TreeInput | undefined,
): Promise<FigureData> {
  if (tree === undefined) throw new Error('a tree figure is computed with its tree');
  const { connection, from, conditions } = rows;
  const tip = columnOf(source, figure.tip ?? '', 'tip');
  const color = figure.color === undefined ? null : columnOf(source, figure.color, 'color');
  const found = await connection.query(
    `SELECT CAST(${tip.sql} AS VARCHAR) AS "tip", ${color === null ? 'NULL' : `min(${color.sql})`} AS "color" ` +
      `FROM ${from}${whereOf(conditions, `${tip.sql} IS NOT NULL`)} GROUP BY 1`,
    statement.params,
  );
  const [total = {}] = await connection.query(
    `SELECT count(*) AS "n" FROM ${from}${whereOf(conditions)}`,
    statement.params,
  );
  const colors = new Map<string, JsonValue | undefined>(found.map((row) => [String(row.tip), row.color]));
  const { parsed } = tree;
  let unmatched = 0;
  const nodes = parsed.parents.map((parent, node) => {
    const name = parsed.names[node] ?? null;
    const isTip = parsed.tips[node] === 1 && parsed.parents[node + 1] !== node;
    const matched = isTip && name !== null && colors.has(name);
    if (isTip && !matched) unmatched++;
    return {
      node,
      parent: parent < 0 ? null : parent,
      name,
      length: parsed.lengths[node] ?? null,
      support: parsed.supports[node] ?? null,
      tips: parsed.tips[node] ?? 0,
      color: matched && name !== null ? (colors.get(name) ?? null) : null,
      matched,
    };
  });
  const roles: Role[] = [
    numberRole('node', null, 'long'),
    numberRole('parent', null, 'long'),
    { ...roleOf('name', tip), type: 'string', output: 'plain' },
    numberRole('length', null),
    numberRole('support', null),
    numberRole('tips', null, 'long'),
    ...(color === null ? [] : [roleOf('color', color)]),
    { name: 'matched', type: 'boolean', column: null, output: 'plain' },
  ];
  return {
    ...figureAnswer(roles, nodes, false, count(total.n)),
    unmatched_tips: unmatched,
    tree_file: tree.file,
  };
}
