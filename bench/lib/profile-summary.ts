/**
 * Reads a V8 `.cpuprofile` (written by `--cpu-prof`, e.g. through BENCH_GATEWAY_NODE_FLAGS or
 * BENCH_BARE_NODE_FLAGS) and prints where the busy time went: self time per function and per
 * layer, busy against idle. Start-up is left out: only samples from `--from-seconds` (default
 * 1 s after the last module compilation seen) count.
 *
 * `node bin/run-ts.js bench/lib/profile-summary.ts FILE.cpuprofile [--top 40] [--requests N]`
 * With `--requests N` (the requests the process served in the window) it also prints µs per
 * request of each layer and function, so two processes (the gateway, the bare proxy) can be
 * compared request for request. `--within NAME[@PATH]` (repeatable) also prints the time of the
 * samples with a function of that name (in a file whose URL contains PATH) anywhere on their
 * stack: a function's inclusive cost, what it calls (Node's internals, V8's natives) included.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  parent?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The layer a frame belongs to: a package, a gateway folder, Node itself or V8's own entries. */
function layerOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return 'gc';
    if (functionName === '(program)') return 'program';
    return 'native';
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node';
  const services = url.match(/\/(services|bench)\/([^/]+)\//);
  if (services) return `${services[1]}/${services[2]}`;
  return 'other';
}

const isNodeInternal = (layer: string) => layer === 'node' || layer === 'native';

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '40' }, requests: { type: 'string' }, 'from-seconds': { type: 'string' }, within: { type: 'string', multiple: true } },
  });
  const file = positionals[0];
  if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--top N] [--requests N] [--from-seconds S] [--within NAME ...]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) byId.get(child)!.parent = node.id;

  // Sample times (µs from the start) and where start-up ended.
  const times: number[] = [];
  let t = 0;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const compiling = (id: number) => /compileFunction|compileSourceTextModule|link|loadESM|importModuleDynamically/.test(byId.get(id)!.callFrame.functionName);
  let lastCompile = 0;
  profile.samples.forEach((id, i) => {
    if (compiling(id)) lastCompile = times[i]!;
  });
  const from = values['from-seconds'] !== undefined ? Number(values['from-seconds']) * 1e6 : lastCompile + 1e6;

  // Node's own frames (socket writes, timers, streams) count for the nearest caller outside Node.
  const attributed = (id: number): string => {
    let node = byId.get(id);
    while (node) {
      const layer = layerOf(node.callFrame);
      if (!isNodeInternal(layer)) return layer;
      node = node.parent === undefined ? undefined : byId.get(node.parent);
    }
    return 'node';
  };
  const selfByFunction = new Map<string, number>();
  const selfByLayer = new Map<string, number>();
  const attributedByLayer = new Map<string, number>();
  const withinNames = values.within ?? [];
  const withinByName = new Map(withinNames.map((name) => [name, 0]));
  const matchers = withinNames.map((spec) => {
    // At the first @ only: a path may name a scoped package (`toBinary@node_modules/@protobuf-ts/runtime`).
    const at = spec.indexOf('@');
    const name = at === -1 ? spec : spec.slice(0, at);
    const path = at === -1 ? undefined : spec.slice(at + 1);
    return { spec, matches: (frame: CallFrame) => frame.functionName === name && (path === undefined || frame.url.includes(path)) };
  });
  /** The `--within` specs on a sample's stack, each once. */
  const namesOnStack = (id: number): Set<string> => {
    const found = new Set<string>();
    for (let node = byId.get(id); node; node = node.parent === undefined ? undefined : byId.get(node.parent)) {
      for (const { spec, matches } of matchers) if (matches(node.callFrame)) found.add(spec);
    }
    return found;
  };
  let idle = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (times[i]! < from) return;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(id)!.callFrame;
    const layer = layerOf(frame);
    if (layer === '(idle)') {
      idle += delta;
      return;
    }
    busy += delta;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(services|bench)\//, '$1/')}:${frame.lineNumber + 1}`;
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + delta);
    selfByLayer.set(layer, (selfByLayer.get(layer) ?? 0) + delta);
    const owner = isNodeInternal(layer) ? attributed(id) : layer;
    attributedByLayer.set(owner, (attributedByLayer.get(owner) ?? 0) + delta);
    if (withinNames.length > 0) for (const name of namesOnStack(id)) withinByName.set(name, withinByName.get(name)! + delta);
  });
  const requests = values.requests !== undefined ? Number(values.requests) : undefined;
  const show = (micros: number) =>
    `${((100 * micros) / busy).toFixed(1).padStart(5)}%${requests ? `  ${(micros / requests).toFixed(2).padStart(7)} µs/req` : ''}`;
  console.log(`${file}\nwindow from ${(from / 1e6).toFixed(1)} s: busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s` +
    (requests ? `, ${requests} requests: ${(busy / requests).toFixed(1)} µs busy per request` : ''));
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  console.log('\nlayers (self time)');
  for (const [layer, micros] of sorted(selfByLayer)) console.log(`  ${show(micros)}  ${layer}`);
  console.log('\nlayers (Node internals counted for their caller)');
  for (const [layer, micros] of sorted(attributedByLayer)) console.log(`  ${show(micros)}  ${layer}`);
  console.log(`\nfunctions (self time, top ${values.top})`);
  for (const [name, micros] of sorted(selfByFunction).slice(0, Number(values.top))) console.log(`  ${show(micros)}  ${name}`);
  if (withinNames.length === 0) return;
  console.log('\nfunctions (inclusive: samples with the function on their stack)');
  for (const [name, micros] of withinByName) console.log(`  ${show(micros)}  ${name}`);
}

main();
