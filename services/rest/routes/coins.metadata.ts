import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { PATH_PARAMETER_MAX_LENGTH } from '../../core/index.js';
import { canonicalStructTag, CoinMetadata } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** A Move struct tag, possibly generic; addresses may be short (0x2) or full. */
export const COIN_TYPE_PATTERN = /^0x[0-9a-fA-F]{1,64}::[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(<.+>)?$/;

/** GET /coins/{coinType}/metadata: coin metadata, verification and market data. */
export function registerGetCoinMetadata(app: App, deps: RestDeps): void {
  app.get('/coins/:coinType/metadata', {
    config: dataRoute,
    schema: {
      tags: ['coins'],
      summary: 'Coin metadata',
      description: 'coinType URL-encoded (e.g. 0x2%3A%3Asui%3A%3ASUI). `verified`: SUI, or listed in SUIGW_VERIFIED_COIN_TYPES. `usdValue` (price of one coin) and `marketCap` (price × total supply) when the price source knows the coin. 404 COIN_NOT_FOUND when the coin has no metadata.',
      params: z.object({
        coinType: z.string().max(PATH_PARAMETER_MAX_LENGTH).regex(COIN_TYPE_PATTERN).refine((v) => canonicalStructTag(v) !== undefined, 'not a Move struct tag')
          .meta({ example: '0x2::sui::SUI' }),
      }),
      response: { 200: z.object({ data: CoinMetadata }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.coins.metadata(contextOf(deps, request), request.params.coinType) }));
}
