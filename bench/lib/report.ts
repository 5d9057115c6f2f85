import type { Comparison, SubjectResult } from './rounds.js';
import { median } from './stats.js';

/** Compact fixed-width tables: first column left-aligned, the others right-aligned. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const signed = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(0)}` : '-');

/** Per subject, medians over the rounds. */
export function printSubjects(results: readonly SubjectResult[]): void {
  const mid = (result: SubjectResult, pick: (s: SubjectResult['samples'][number]) => number) => median(result.samples.map(pick));
  printTable(
    ['subject', 'req/s', 'p50 µs', 'p99 µs', 'CPU µs/req', 'simnet µs/req', 'failures'],
    results.map((result) => [
      result.subject.name,
      fixed(mid(result, (s) => s.rps)),
      fixed(mid(result, (s) => s.p50)),
      fixed(mid(result, (s) => s.p99)),
      fixed(mid(result, (s) => s.serverCpu)),
      fixed(mid(result, (s) => s.upstreamCpu)),
      String(result.samples.reduce((sum, s) => sum + s.failures, 0)),
    ]),
  );
}

/** Per pair, throughput and CPU-per-request ratios per round (median, min..max) and added latency. */
export function printComparisons(comparisons: readonly Comparison[]): void {
  printTable(
    ['ratio (per round)', 'req/s median', 'min..max', 'CPU/req median', 'min..max', 'added p50 µs', 'added p99 µs'],
    comparisons.map((c) => [
      c.name,
      fixed(c.throughput.median, 3),
      `${fixed(c.throughput.min, 3)}..${fixed(c.throughput.max, 3)}`,
      fixed(c.cpu.median, 3),
      `${fixed(c.cpu.min, 3)}..${fixed(c.cpu.max, 3)}`,
      signed(c.addedP50),
      signed(c.addedP99),
    ]),
  );
}

/** Any failed request makes the ratios meaningless: say so next to them. */
export function warnOnFailures(results: readonly SubjectResult[]): void {
  const failing = results.filter((r) => r.samples.some((s) => s.failures > 0)).map((r) => r.subject.name);
  if (failing.length > 0) console.log(`WARNING: failed, non-2xx or refused requests on ${failing.join(', ')}: those figures are not comparable.`);
}
