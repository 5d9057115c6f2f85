/**
 * Rows per statement of a multi-row INSERT. PostgreSQL takes at most 65,535 bind parameters in
 * one statement (the wire protocol counts them in 16 bits), so a list of rows that is not bounded
 * by anything else is written in batches: 1,000 rows stay under the limit up to 65 columns.
 */
export const ROWS_PER_INSERT = 1_000;

/**
 * The rows in order, in batches of at most ROWS_PER_INSERT. Write them in one transaction when the
 * list must land whole or not at all: each batch is a statement of its own.
 */
export function* insertBatches<Row>(rows: readonly Row[]): Generator<Row[]> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) yield rows.slice(start, start + ROWS_PER_INSERT);
}
