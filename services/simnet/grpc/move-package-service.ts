import type { GrpcTypes } from '@mysten/sui/grpc';
import type { LedgerReader, MovePackageRecord } from '../ledger/index.js';
import { datatypeToProto, functionToProto, packageToProto } from './convert-packages.js';
import { invalidArgument, notFound } from './errors.js';
import { cursorToPageToken, pageSize, pageTokenToCursor, parseAddress } from './validate.js';

export class MovePackageServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  #package(id: string | undefined): MovePackageRecord {
    const packageId = parseAddress(id, 'package_id');
    const pkg = this.#ledger.getPackage(packageId);
    if (!pkg) throw notFound(`package ${packageId} not found`);
    return pkg;
  }

  #module(request: { packageId?: string; moduleName?: string; name?: string }) {
    const pkg = this.#package(request.packageId);
    if (!request.moduleName) throw invalidArgument('missing module_name');
    if (!request.name) throw invalidArgument('missing name');
    const module = pkg.modules.find((candidate) => candidate.name === request.moduleName);
    if (!module) throw notFound(`module ${request.moduleName} not found in ${pkg.packageId}`);
    return { pkg, module };
  }

  async getPackage(request: GrpcTypes.GetPackageRequest): Promise<GrpcTypes.GetPackageResponse> {
    return { package: packageToProto(this.#package(request.packageId)) };
  }

  async getDatatype(request: GrpcTypes.GetDatatypeRequest): Promise<GrpcTypes.GetDatatypeResponse> {
    const { pkg, module } = this.#module(request);
    const datatype = module.datatypes.find((candidate) => candidate.name === request.name);
    if (!datatype) throw notFound(`datatype ${request.name} not found`);
    return { datatype: datatypeToProto(pkg.originalId, module.name, datatype) };
  }

  async getFunction(request: GrpcTypes.GetFunctionRequest): Promise<GrpcTypes.GetFunctionResponse> {
    const { module } = this.#module(request);
    const fn = module.functions.find((candidate) => candidate.name === request.name);
    if (!fn) throw notFound(`function ${request.name} not found`);
    return { function: functionToProto(fn) };
  }

  async listPackageVersions(request: GrpcTypes.ListPackageVersionsRequest): Promise<GrpcTypes.ListPackageVersionsResponse> {
    const versions = this.#ledger.listPackageVersions(this.#package(request.packageId).packageId);
    const start = Number(pageTokenToCursor(request.pageToken) ?? '0');
    if (!Number.isSafeInteger(start) || start < 0) throw invalidArgument('invalid page_token');
    const size = pageSize(request.pageSize) ?? 50;
    const page = versions.slice(start, start + size);
    return {
      versions: page.map((pkg) => ({ packageId: pkg.packageId, version: pkg.version })),
      nextPageToken: start + size < versions.length ? cursorToPageToken(String(start + size)) : undefined,
    };
  }
}
