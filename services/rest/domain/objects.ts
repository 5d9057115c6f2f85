import { normalizeSuiAddress } from '@mysten/sui/utils';
import { ApiError } from '../../core/errors.js';
import type { ObjectMetadata, ObjectResponse, Package, SuiObject } from '../schemas.js';
import { OBJECT_READ_MASK } from './accounts.js';
import type { NetworkContext } from './context.js';
import { toObjectMetadata, toSuiObject } from './map-object.js';
import { fullAddress } from './proto-values.js';
import { ask, fieldMask } from './upstream-calls.js';

export class ObjectService {
  async object(ctx: NetworkContext, objectId: string): Promise<SuiObject> {
    const response = await ask(ctx.upstream, 'GetObject', (o) => ctx.upstream.grpc.ledgerService.getObject({
      objectId: normalizeSuiAddress(objectId), readMask: fieldMask(OBJECT_READ_MASK),
    }, o), 'OBJECT_NOT_FOUND');
    if (!response.object) throw new ApiError('OBJECT_NOT_FOUND');
    return toSuiObject(response.object, true);
  }

  /** Object responses in the order asked; a missing object is `{error}` in its place. */
  async objects(ctx: NetworkContext, objectIds: readonly string[]): Promise<ObjectResponse[]> {
    const ids = objectIds.map((id) => normalizeSuiAddress(id));
    const response = await ask(ctx.upstream, 'BatchGetObjects', (o) => ctx.upstream.grpc.ledgerService.batchGetObjects({
      requests: ids.map((objectId) => ({ objectId })), readMask: fieldMask(OBJECT_READ_MASK),
    }, o));
    return ids.map((id, index) => {
      const result = response.objects[index]?.result;
      if (result?.oneofKind === 'object') return { data: toSuiObject(result.object, true) };
      return { error: result?.oneofKind === 'error' ? `${id}: ${result.error.message ?? 'not found'}` : `${id}: not found` };
    });
  }

  async metadata(ctx: NetworkContext, objectId: string): Promise<ObjectMetadata> {
    const response = await ask(ctx.upstream, 'GetObject', (o) => ctx.upstream.grpc.ledgerService.getObject({
      objectId: normalizeSuiAddress(objectId), readMask: fieldMask(['object_id', 'object_type', 'display']),
    }, o), 'OBJECT_NOT_FOUND');
    if (!response.object) throw new ApiError('OBJECT_NOT_FOUND');
    return toObjectMetadata(response.object);
  }

  async package(ctx: NetworkContext, packageId: string): Promise<Package> {
    const id = normalizeSuiAddress(packageId);
    const [pkg, object] = await Promise.all([
      ask(ctx.upstream, 'GetPackage', (o) => ctx.upstream.grpc.movePackageService.getPackage({ packageId: id }, o), 'PACKAGE_NOT_FOUND'),
      ask(ctx.upstream, 'GetObject', (o) => ctx.upstream.grpc.ledgerService.getObject({ objectId: id, readMask: fieldMask(['object_id', 'version', 'digest']) }, o), 'PACKAGE_NOT_FOUND'),
    ]);
    if (!pkg.package) throw new ApiError('PACKAGE_NOT_FOUND');
    return {
      packageId: fullAddress(pkg.package.storageId ?? id),
      version: (pkg.package.version ?? object.object?.version ?? 0n).toString(),
      digest: object.object?.digest ?? '',
      modules: pkg.package.modules.map((m) => ({ name: m.name ?? '' })),
    };
  }
}
