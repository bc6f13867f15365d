/*
 * CSV formula injection (OWASP): a spreadsheet that opens a CSV runs a cell starting with `=`, `+`,
 * `-` or `@` as a formula (and a leading tab or carriage return can hide such a start), so a value
 * uploaded by one user could run a command on the machine of another who downloads it. Such a
 * cell gets a leading `'`, which spreadsheets show as text. Numbers (`-3.5`, `+1e3`) stay as they
 * are: they are no formula and a spreadsheet should still read them as numbers.
 *
 * The server applies the same rule inside DuckDB (its downloads are written by COPY), from the
 * two patterns below; the web app and the server's CSV headers use `neutraliseCsvCell`.
 */

/** A cell a spreadsheet may take for a formula (RE2 and JavaScript syntax alike). */
export const CSV_FORMULA_START = '^[=+\\-@\\t\\r]';

/** A plain decimal number, which is exempt. */
export const CSV_PLAIN_NUMBER = '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$';

const formulaStart = new RegExp(CSV_FORMULA_START);
const plainNumber = new RegExp(CSV_PLAIN_NUMBER);

/** The text of one CSV cell, with a `'` in front when a spreadsheet would run it as a formula. */
export function neutraliseCsvCell(text: string): string {
  return formulaStart.test(text) && !plainNumber.test(text) ? `'${text}` : text;
}
