import type { AddressInfo } from 'node:net';
import { GrpcTypes, SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLogger, systemClock } from '../core/index.js';
import { startSimnet, type RunningSimnet } from '../simnet/index.js';
import { MemoryStreamLease } from '../streams/delivery/stream-lease.js';
import { CheckpointIngest } from '../streams/ingest/checkpoint-ingest.js';
import { MemoryStreamLog } from '../streams/log/stream-log.memory.js';
import { SuiUpstream, defaultUpstreamPolicy } from '../upstream/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { call } from '../../test/support/management-calls.js';
import { EventCatalog, normalizeMoveType, type CatalogEvent } from './index.js';

const { OpenSignatureBody_Type: Body, Ability } = GrpcTypes;
const ABILITIES: Record<number, string> = { [Ability.COPY]: 'copy', [Ability.DROP]: 'drop', [Ability.STORE]: 'store', [Ability.KEY]: 'key' };
const PRIMITIVES: Record<number, string> = {
  [Body.ADDRESS]: 'address', [Body.BOOL]: 'bool', [Body.U8]: 'u8', [Body.U16]: 'u16', [Body.U32]: 'u32',
  [Body.U64]: 'u64', [Body.U128]: 'u128', [Body.U256]: 'u256',
};

/** The upstream's normalized signature as a Move type string, in the catalog's spelling. */
function moveType(body: GrpcTypes.OpenSignatureBody): string {
  const primitive = PRIMITIVES[body.type ?? 0];
  if (primitive) return primitive;
  if (body.type === Body.VECTOR) return `vector<${moveType(body.typeParameterInstantiation[0]!)}>`;
  if (body.type === Body.TYPE_PARAMETER) return `T${body.typeParameter ?? 0}`;
  const args = body.typeParameterInstantiation.map(moveType);
  return normalizeMoveType(`${body.typeName}${args.length > 0 ? `<${args.join(',')}>` : ''}`);
}

/**
 * The shipped catalog against a running upstream (simnet): each simnet protocol's event layout is
 * the one the upstream's MovePackageService.GetDatatype returns, and an event type taken from
 * /v1/catalog/events works as a Warp stream filter on events simnet really emits.
 */
describe('the catalog against simnet', () => {
  let simnet: RunningSimnet;
  let upstream: SuiUpstream;
  let warp: { log: MemoryStreamLog; lease: MemoryStreamLease };
  let t: TestApp;
  let client: SuiGrpcClient;
  beforeAll(async () => {
    simnet = await startSimnet({ seed: 'catalog', checkpointIntervalMs: 100, transactionsPerCheckpoint: 8 });
    simnet.pause();
    client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: defaultUpstreamPolicy });
    // The system clock: checkpoints arrive in real time, and the buffer's age is counted from them.
    warp = { log: new MemoryStreamLog(systemClock), lease: new MemoryStreamLease(systemClock) };
    t = await createTestApp({
      tier: 'enterprise', env: { SUIGW_CATALOG_SIMNET_NETWORKS: 'mainnet' },
      extra: { clock: systemClock, upstreams: new Map([['mainnet', upstream]]), warp },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    await simnet?.stop();
  });

  const simnetEvents = (): CatalogEvent[] => EventCatalog.shipped().events('simnet').filter((event) => event.protocol.startsWith('simnet-'));

  it('every simnet event layout equals the upstream\'s normalized datatype (GetDatatype)', async () => {
    expect(simnetEvents().length).toBeGreaterThan(0);
    for (const event of simnetEvents()) {
      const { response } = await client.movePackageService.getDatatype({ packageId: event.packageId, moduleName: event.module, name: event.name });
      const datatype = response.datatype!;
      expect({
        type: event.type,
        abilities: datatype.abilities.map((ability) => ABILITIES[ability]),
        typeParameters: datatype.typeParameters.map((parameter, index) => ({ name: `T${index}`, constraints: parameter.constraints.map((ability) => ABILITIES[ability]), isPhantom: parameter.isPhantom ?? false })),
        fields: datatype.fields.map((field) => ({ name: field.name, type: moveType(field.type!) })),
      }).toEqual({
        type: event.type,
        abilities: event.abilities,
        typeParameters: event.typeParameters,
        fields: event.fields.map(({ name, type }) => ({ name, type })),
      });
    }
  });

  it('a stream on an event type from /v1/catalog/events receives the matching events simnet emits, whose JSON fits the field schemas', async () => {
    const listed = await call(t, 'GET', '/v1/catalog/events?protocol=simnet-dex', { key: t.adminKey });
    expect(listed.status).toBe(200);
    const [swap] = listed.body.data as CatalogEvent[];
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 'swaps', type: 'event', filters: { eventTypes: [swap!.type] } } });
    expect(created.status).toBe(201);
    const streamId = (created.body.data as { id: string }).id;
    const port = (t.app.server.address() as AddressInfo).port;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${streamId}/ws`, { headers: { 'x-api-key': t.adminKey } });
    const events: { type: string; json: Record<string, unknown> }[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { event: string; id?: string; data: { type: string; json: Record<string, unknown> } };
      if (message.id === undefined) return;
      events.push(message.data);
      socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    await new Promise((resolve) => socket.once('open', resolve));
    // The checkpoint ingest of the streams role, from simnet's tip; then simnet produces swaps.
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream, database: t.db.database, log: warp.log, clock: systemClock, logger: createLogger('silent') });
    await ingest.start();
    simnet.resume();
    try {
      await expect.poll(() => events.length, { timeout: 30_000 }).toBeGreaterThan(0);
    } finally {
      await ingest.stop();
      socket.close();
    }
    for (const event of events) {
      expect(event.type.startsWith(`${swap!.type}<`)).toBe(true);
      expect(Object.keys(event.json).sort()).toEqual(swap!.fields.map((field) => field.name).sort());
      for (const field of swap!.fields) {
        const value = event.json[field.name];
        const schema = field.schema as { type: string; pattern?: string };
        expect({ field: field.name, type: typeof value === 'string' ? 'string' : typeof value }).toEqual({ field: field.name, type: schema.type });
        if (schema.pattern) expect(value).toMatch(new RegExp(schema.pattern));
      }
    }
  }, 60_000);
});
