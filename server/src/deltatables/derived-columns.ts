import type { DerivedColumn } from '@service/common';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';

/**
 * A file's relation with its derived columns added (docs/project-yaml.md "Rules"): each the
 * first capture group of its expression in the text of its `from` column, null where the
 * expression does not match (or the value is null). The expression was checked as RE2 when the
 * read options were saved; here it is only a string literal, so nothing but a value reaches SQL.
 * `file` names the file in errors; `columns` are the relation's own; `taken` the names the table
 * adds beside them (run, file and pattern columns), which a derived column may not take either.
 */
export function withDerivedColumns(
  relation: string,
  derive: readonly DerivedColumn[] | undefined,
  file: { name: string; columns: readonly string[]; taken?: readonly string[] },
): string {
  if (derive === undefined || derive.length === 0) return relation;
  const items = derive.map((column, index) => {
    checkDerivedColumn(column, index, file);
    const text = `CAST(${quoteIdentifier(column.from)} AS VARCHAR)`;
    const regex = quoteString(column.regex);
    // regexp_extract gives '' where nothing matches: that is a null here, unlike an empty capture.
    const value = `CASE WHEN regexp_matches(${text}, ${regex}) THEN regexp_extract(${text}, ${regex}, 1) END`;
    return `CAST(${value} AS VARCHAR) AS ${quoteIdentifier(column.name)}`;
  });
  return `(SELECT *, ${items.join(', ')} FROM ${relation})`;
}

/** `from` must be a column of the file; `name` none of the file's nor of the table's own. */
function checkDerivedColumn(
  column: DerivedColumn,
  index: number,
  file: { name: string; columns: readonly string[]; taken?: readonly string[] },
): void {
  const at = `read_options.derive[${index}]`;
  if (!file.columns.includes(column.from)) {
    const [from, name] = [JSON.stringify(column.from), JSON.stringify(column.name)];
    const message = `the file has no column ${from} to derive ${name} from`;
    throw new DomainError('validation_failed', `${file.name}: ${message}`, [{ path: `${at}.from`, message }]);
  }
  if (file.columns.includes(column.name) || (file.taken ?? []).includes(column.name)) {
    const name = JSON.stringify(column.name);
    const message = `the table already has a column ${name}: choose another name for the derived one`;
    throw new DomainError('validation_failed', `${file.name}: ${message}`, [{ path: `${at}.name`, message }]);
  }
}
