import { describe, expect, it } from 'vitest';
import { metricOperationOf, OTHER_METHOD } from './metric-operation.js';

describe('metricOperationOf', () => {
  it('keeps known v2 and reflection paths', () => {
    expect(metricOperationOf('/sui.rpc.v2.LedgerService/GetObject')).toBe('/sui.rpc.v2.LedgerService/GetObject');
    expect(metricOperationOf('/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints')).toBe('/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints');
    expect(metricOperationOf('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo')).toBe('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo');
  });

  it('folds every unknown path into one label, so callers cannot mint label values', () => {
    const labels = new Set(Array.from({ length: 100 }, (_, i) => metricOperationOf(`/made.up.Service${i}/Method${i}`)));
    expect([...labels]).toEqual([OTHER_METHOD]);
    expect(metricOperationOf('/sui.rpc.v2.LedgerService/getobject')).toBe(OTHER_METHOD);
  });
});
