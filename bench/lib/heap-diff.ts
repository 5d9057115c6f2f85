/**
 * What grew between two V8 heap snapshots (bench/memory.ts with BENCH_HEAP_SNAPSHOTS=DIR writes
 * one per heap report): objects grouped by kind and constructor (or a string's first characters),
 * with the change in count and in self size, largest growth first.
 *
 * `node bin/run-ts.js bench/lib/heap-diff.ts EARLIER.heapsnapshot LATER.heapsnapshot [rows]`
 *
 * A snapshot is read whole (about 50 MB for the gateway); only counts and sizes are kept.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** Count and self size per `kind name` (strings by their first 40 characters). */
export function heapGroups(path: string): Map<string, Group> {
  const file = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshotFile;
  const fields = file.snapshot.meta.node_fields;
  const kinds = file.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let offset = 0; offset < file.nodes.length; offset += width) {
    const kind = kinds[file.nodes[offset + typeAt]!]!;
    const rawName = file.strings[file.nodes[offset + nameAt]!] ?? '';
    const name = kind === 'string' || kind === 'concatenated string' || kind === 'sliced string' ? JSON.stringify(rawName.slice(0, 40)) : rawName;
    const key = `${kind} ${name}`;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += file.nodes[offset + sizeAt]!;
    groups.set(key, group);
  }
  return groups;
}

export function heapDiff(earlier: Map<string, Group>, later: Map<string, Group>): { key: string; count: number; bytes: number }[] {
  const keys = new Set([...earlier.keys(), ...later.keys()]);
  return [...keys]
    .map((key) => ({
      key,
      count: (later.get(key)?.count ?? 0) - (earlier.get(key)?.count ?? 0),
      bytes: (later.get(key)?.bytes ?? 0) - (earlier.get(key)?.bytes ?? 0),
    }))
    .filter((row) => row.count !== 0 || row.bytes !== 0)
    .sort((a, b) => b.bytes - a.bytes);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [earlierPath, laterPath, rowsArg] = process.argv.slice(2);
  if (!earlierPath || !laterPath) {
    console.error('usage: node bin/run-ts.js bench/lib/heap-diff.ts EARLIER.heapsnapshot LATER.heapsnapshot [rows]');
    process.exit(2);
  }
  const rows = heapDiff(heapGroups(earlierPath), heapGroups(laterPath));
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  console.log(`self size ${total >= 0 ? '+' : ''}${total} bytes in all; largest growth first:`);
  for (const row of rows.slice(0, Number(rowsArg ?? 30))) {
    console.log(`${String(row.bytes).padStart(10)} B  ${String(row.count).padStart(7)}  ${row.key}`);
  }
}
