import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { blake2b256 } from './hashing.js';
import { SUI_FRAMEWORK, SUI_SYSTEM } from './constants.js';
import type { MoveAbility, MoveDatatypeRecord, MoveFunctionRecord, MoveModuleRecord } from './types.js';

/**
 * Packages and coin types simnet publishes at genesis. Their addresses do not depend on the
 * seed, so a protocol catalog (gateway config) can name them once.
 */
function catalogAddress(name: string): string {
  return normalizeSuiAddress(Buffer.from(blake2b256(new TextEncoder().encode(`simnet-package:${name}`))).toString('hex'));
}

export const CATALOG = {
  usdcPackage: catalogAddress('usdc'),
  tokensPackage: catalogAddress('tokens'),
  dexPackage: catalogAddress('dex'),
  lendingPackage: catalogAddress('lending'),
  envelopePackage: catalogAddress('envelope'),
  nftPackage: catalogAddress('nft'),
  suinsPackage: catalogAddress('suins'),
  /** suigw's billing app (move/suigw_billing): issues plan allowances and takes charges. */
  billingPackage: catalogAddress('billing'),
  /** The shared `billing::BillingConfig` (spender, treasury) of simnet's billing app. */
  billingConfig: catalogAddress('billing-config'),
} as const;

export const COIN_TYPES = {
  SUI: `${SUI_FRAMEWORK}::sui::SUI`,
  USDC: `${CATALOG.usdcPackage}::usdc::USDC`,
  WAL: `${CATALOG.tokensPackage}::wal::WAL`,
  DEEP: `${CATALOG.tokensPackage}::deep::DEEP`,
  /** Registered without CoinMetadata, to exercise metadata fallbacks. */
  MEME: `${CATALOG.tokensPackage}::meme::MEME`,
} as const;

// Type strings are canonical as the node renders them: full addresses, `<A,B>` without spaces.
export const EVENT_TYPES = {
  swap: (a: string, b: string) => normalizeStructTag(`${CATALOG.dexPackage}::pool::SwapEvent<${a},${b}>`),
  deposit: `${CATALOG.lendingPackage}::lending::DepositEvent`,
  wrappedDeposit: `${CATALOG.envelopePackage}::envelope::Wrapped<${CATALOG.lendingPackage}::lending::DepositEvent>`,
  billingCharge: `${CATALOG.billingPackage}::billing::ChargeEvent`,
} as const;

export const OBJECT_TYPES = {
  pool: (a: string, b: string) => normalizeStructTag(`${CATALOG.dexPackage}::pool::Pool<${a},${b}>`),
  collectible: `${CATALOG.nftPackage}::collectible::Collectible`,
  suinsRegistration: `${CATALOG.suinsPackage}::suins_registration::SuinsRegistration`,
  stakedSui: `${SUI_SYSTEM}::staking_pool::StakedSui`,
  allowance: (coinType: string) => normalizeStructTag(`${SUI_FRAMEWORK}::allowance::Allowance<${SUI_FRAMEWORK}::balance::Balance<${coinType}>>`),
  allowanceCap: (coinType: string) => normalizeStructTag(`${SUI_FRAMEWORK}::allowance::AllowanceCap<${SUI_FRAMEWORK}::balance::Balance<${coinType}>>`),
  allowanceProposal: (coinType: string) => normalizeStructTag(`${SUI_FRAMEWORK}::allowance::AllowanceProposal<${SUI_FRAMEWORK}::balance::Balance<${coinType}>>`),
  billingConfig: `${CATALOG.billingPackage}::billing::BillingConfig`,
} as const;

/** Where simnet's billing app sends charges (no key: only balances arrive there). */
export const BILLING_TREASURY = catalogAddress('billing-treasury');

/** The app type an allowance issued by the billing module is bound to. */
export const BILLING_APP_TYPE = `${CATALOG.billingPackage}::billing::BillingApp`;

const KEY: MoveAbility[] = ['key'];
const KEY_STORE: MoveAbility[] = ['key', 'store'];
const COPY_DROP: MoveAbility[] = ['copy', 'drop'];

function struct(name: string, abilities: MoveAbility[], fields: [string, string][], typeParameters: { constraints: MoveAbility[]; isPhantom: boolean }[] = []): MoveDatatypeRecord {
  return { name, kind: 'struct', abilities, typeParameters, fields: fields.map(([fieldName, type]) => ({ name: fieldName, type })) };
}

function fn(name: string, parameters: string[], returns: string[], options: { typeParameters?: number; isEntry?: boolean; visibility?: MoveFunctionRecord['visibility'] } = {}): MoveFunctionRecord {
  return {
    name,
    visibility: options.visibility ?? 'public',
    isEntry: options.isEntry ?? false,
    typeParameters: Array.from({ length: options.typeParameters ?? 0 }, () => ({ constraints: [] })),
    parameters,
    returns,
  };
}

const F = SUI_FRAMEWORK;
const UID = `${F}::object::UID`;
const ID = `${F}::object::ID`;
const STRING = `0x0000000000000000000000000000000000000000000000000000000000000001::string::String`;
const CTX = `&mut ${F}::tx_context::TxContext`;
const COIN_T = `${F}::coin::Coin<T0>`;
const BALANCE_T = `${F}::balance::Balance<T0>`;
const WITHDRAWAL_T = `${F}::funds_accumulator::Withdrawal<${F}::balance::Balance<T0>>`;
const PHANTOM = [{ constraints: [] as MoveAbility[], isPhantom: true }];
const OPTION = (type: string) => `0x0000000000000000000000000000000000000000000000000000000000000001::option::Option<${type}>`;

/** The part of the Sui framework (0x2) simnet models: what the SDK's builders call. */
export const FRAMEWORK_MODULES: MoveModuleRecord[] = [
  {
    name: 'coin',
    datatypes: [
      struct('Coin', KEY_STORE, [['id', UID], ['balance', BALANCE_T]], PHANTOM),
      struct('CoinMetadata', KEY_STORE, [['id', UID], ['decimals', 'u8'], ['name', STRING], ['symbol', '0x0000000000000000000000000000000000000000000000000000000000000001::ascii::String'], ['description', STRING], ['icon_url', `0x0000000000000000000000000000000000000000000000000000000000000001::option::Option<${F}::url::Url>`]], PHANTOM),
      struct('TreasuryCap', KEY_STORE, [['id', UID], ['total_supply', `${F}::balance::Supply<T0>`]], PHANTOM),
    ],
    functions: [
      fn('split', [`&mut ${COIN_T}`, 'u64', CTX], [COIN_T], { typeParameters: 1 }),
      fn('join', [`&mut ${COIN_T}`, COIN_T], [], { typeParameters: 1 }),
      fn('value', [`&${COIN_T}`], ['u64'], { typeParameters: 1 }),
      fn('zero', [CTX], [COIN_T], { typeParameters: 1 }),
      fn('destroy_zero', [COIN_T], [], { typeParameters: 1 }),
      fn('into_balance', [COIN_T], [BALANCE_T], { typeParameters: 1 }),
      fn('from_balance', [BALANCE_T, CTX], [COIN_T], { typeParameters: 1 }),
      fn('send_funds', [COIN_T, 'address'], [], { typeParameters: 1 }),
      fn('redeem_funds', [WITHDRAWAL_T, CTX], [COIN_T], { typeParameters: 1 }),
    ],
  },
  {
    name: 'balance',
    datatypes: [struct('Balance', ['store'], [['value', 'u64']], PHANTOM), struct('Supply', ['store'], [['value', 'u64']], PHANTOM)],
    functions: [
      fn('value', [`&${BALANCE_T}`], ['u64'], { typeParameters: 1 }),
      fn('zero', [], [BALANCE_T], { typeParameters: 1 }),
      fn('split', [`&mut ${BALANCE_T}`, 'u64'], [BALANCE_T], { typeParameters: 1 }),
      fn('join', [`&mut ${BALANCE_T}`, BALANCE_T], ['u64'], { typeParameters: 1 }),
      fn('destroy_zero', [BALANCE_T], [], { typeParameters: 1 }),
      fn('send_funds', [BALANCE_T, 'address'], [], { typeParameters: 1 }),
      fn('redeem_funds', [WITHDRAWAL_T], [BALANCE_T], { typeParameters: 1 }),
    ],
  },
  {
    name: 'pay',
    datatypes: [],
    functions: [
      fn('split', [`&mut ${COIN_T}`, 'u64', CTX], [], { typeParameters: 1, isEntry: true }),
      fn('split_vec', [`&mut ${COIN_T}`, 'vector<u64>', CTX], [], { typeParameters: 1, isEntry: true }),
      fn('split_and_transfer', [`&mut ${COIN_T}`, 'u64', 'address', CTX], [], { typeParameters: 1, isEntry: true }),
      fn('join', [`&mut ${COIN_T}`, COIN_T], [], { typeParameters: 1, isEntry: true }),
      fn('join_vec', [`&mut ${COIN_T}`, `vector<${COIN_T}>`], [], { typeParameters: 1, isEntry: true }),
      fn('join_vec_and_transfer', [`vector<${COIN_T}>`, 'address'], [], { typeParameters: 1, isEntry: true }),
      fn('divide_and_keep', [`&mut ${COIN_T}`, 'u64', CTX], [], { typeParameters: 1, isEntry: true }),
    ],
  },
  { name: 'sui', datatypes: [struct('SUI', ['drop'], [['dummy_field', 'bool']])], functions: [] },
  {
    name: 'transfer',
    datatypes: [],
    functions: [fn('public_transfer', ['T0', 'address'], [], { typeParameters: 1 })],
  },
  {
    name: 'allowance',
    datatypes: [
      struct('Allowance', KEY, [['id', UID], ['funder', 'address'], ['spender', OPTION('address')], ['app', OPTION(STRING)], ['lifetime_cap', 'u64'], ['lifetime_spent', 'u64'], ['monthly_limit', 'u64'], ['month', 'u32'], ['month_spent', 'u64'], ['expiration_ms', OPTION('u64')], ['name', STRING], ['start_ms', 'u64'], ['window_months', 'u8'], ['window_start_ms', 'u64']], PHANTOM),
      struct('AllowanceProposal', KEY, [['id', UID], ['funder', 'address'], ['spender', 'address'], ['app', STRING], ['period_limit', 'u64'], ['window_months', 'u8'], ['start_ms', 'u64'], ['expiration_ms', OPTION('u64')], ['name', STRING]], PHANTOM),
      struct('AllowanceCap', KEY, [['id', UID], ['allowance_id', ID]], PHANTOM),
    ],
    functions: [
      fn('balance_spend', [`&mut ${F}::allowance::Allowance<${BALANCE_T}>`, WITHDRAWAL_T, `&${F}::clock::Clock`], [BALANCE_T], { typeParameters: 1 }),
      fn('propose', [STRING, 'address', STRING, 'u64', 'u8', 'u64', OPTION('u64'), CTX], [`${F}::allowance::AllowanceProposal<${BALANCE_T}>`], { typeParameters: 1 }),
      fn('revoke', [`${F}::allowance::AllowanceCap<${BALANCE_T}>`, `${F}::allowance::Allowance<${BALANCE_T}>`], [], { typeParameters: 1, isEntry: true }),
    ],
  },
  { name: 'clock', datatypes: [struct('Clock', KEY, [['id', UID], ['timestamp_ms', 'u64']])], functions: [fn('timestamp_ms', [`&${F}::clock::Clock`], ['u64'])] },
  { name: 'object', datatypes: [struct('UID', ['store'], [['id', ID]]), struct('ID', ['copy', 'drop', 'store'], [['bytes', 'address']])], functions: [] },
  { name: 'dynamic_field', datatypes: [struct('Field', KEY, [['id', UID], ['name', 'T0'], ['value', 'T1']], [{ constraints: ['copy', 'drop', 'store'], isPhantom: false }, { constraints: ['store'], isPhantom: false }])], functions: [] },
  { name: 'display', datatypes: [struct('Display', KEY_STORE, [['id', UID], ['fields', `${F}::vec_map::VecMap<${STRING}, ${STRING}>`], ['version', 'u16']], [{ constraints: ['key'], isPhantom: true }])], functions: [] },
];

export const SYSTEM_MODULES: MoveModuleRecord[] = [
  {
    name: 'staking_pool',
    datatypes: [
      struct('StakedSui', KEY_STORE, [['id', UID], ['pool_id', ID], ['stake_activation_epoch', 'u64'], ['principal', `${F}::balance::Balance<${F}::sui::SUI>`]]),
      struct('PoolTokenExchangeRate', ['copy', 'drop', 'store'], [['sui_amount', 'u64'], ['pool_token_amount', 'u64']]),
    ],
    functions: [],
  },
];

export interface CatalogPackage {
  readonly packageId: string;
  readonly modules: MoveModuleRecord[];
}

/** Third-party packages (stand-ins for protocols the gateway catalogs). */
export function protocolPackages(): CatalogPackage[] {
  const otw = (name: string): MoveDatatypeRecord => struct(name, ['drop'], [['dummy_field', 'bool']]);
  const AB = [{ constraints: [] as MoveAbility[], isPhantom: true }, { constraints: [] as MoveAbility[], isPhantom: true }];
  return [
    { packageId: CATALOG.usdcPackage, modules: [{ name: 'usdc', datatypes: [otw('USDC')], functions: [] }] },
    {
      packageId: CATALOG.tokensPackage,
      modules: [
        { name: 'wal', datatypes: [otw('WAL')], functions: [] },
        { name: 'deep', datatypes: [otw('DEEP')], functions: [] },
        { name: 'meme', datatypes: [otw('MEME')], functions: [] },
      ],
    },
    {
      packageId: CATALOG.dexPackage,
      modules: [
        {
          name: 'pool',
          datatypes: [
            struct('Pool', KEY, [['id', UID], ['reserve_a', 'u64'], ['reserve_b', 'u64'], ['fee_bps', 'u64']], AB),
            struct('SwapEvent', COPY_DROP, [['pool_id', ID], ['sender', 'address'], ['a_to_b', 'bool'], ['amount_in', 'u64'], ['amount_out', 'u64']], AB),
          ],
          functions: [fn('swap_a_to_b', [`&mut ${CATALOG.dexPackage}::pool::Pool<T0, T1>`, `${F}::coin::Coin<T0>`, 'u64', CTX], [`${F}::coin::Coin<T1>`], { typeParameters: 2 })],
        },
      ],
    },
    {
      packageId: CATALOG.lendingPackage,
      modules: [
        {
          name: 'lending',
          datatypes: [
            struct('Market', KEY, [['id', UID], ['total_deposits', 'u64']]),
            struct('DepositEvent', COPY_DROP, [['market_id', ID], ['depositor', 'address'], ['coin_type', STRING], ['amount', 'u64']]),
          ],
          functions: [fn('deposit', [`&mut ${CATALOG.lendingPackage}::lending::Market`, COIN_T, CTX], [], { typeParameters: 1, isEntry: true })],
        },
      ],
    },
    {
      packageId: CATALOG.envelopePackage,
      modules: [{ name: 'envelope', datatypes: [struct('Wrapped', COPY_DROP, [['inner', 'T0'], ['relayer', 'address'], ['nonce', 'u64']], [{ constraints: ['copy', 'drop'], isPhantom: false }])], functions: [] }],
    },
    {
      packageId: CATALOG.nftPackage,
      modules: [
        {
          name: 'collectible',
          datatypes: [struct('Collectible', KEY_STORE, [['id', UID], ['name', STRING], ['description', STRING], ['image_url', STRING], ['edition', 'u64']])],
          functions: [fn('rename', [`&mut ${CATALOG.nftPackage}::collectible::Collectible`, STRING], [], { isEntry: true })],
        },
      ],
    },
    {
      packageId: CATALOG.billingPackage,
      modules: [
        {
          name: 'billing',
          datatypes: [
            struct('BillingApp', ['drop'], [['dummy_field', 'bool']]),
            struct('BillingConfig', KEY, [['id', UID], ['spender', 'address'], ['treasury', 'address']]),
            struct('ChargeEvent', COPY_DROP, [['allowance_id', ID], ['organization', STRING], ['period', 'u64'], ['amount', 'u64'], ['treasury', 'address']]),
          ],
          functions: [
            fn('issue', [`&${CATALOG.billingPackage}::billing::BillingConfig`, `${F}::allowance::AllowanceProposal<${BALANCE_T}>`, CTX], [], { typeParameters: 1 }),
            fn('charge', [`&${CATALOG.billingPackage}::billing::BillingConfig`, `&mut ${F}::allowance::Allowance<${BALANCE_T}>`, WITHDRAWAL_T, 'u64', `&${F}::clock::Clock`, CTX], [], { typeParameters: 1 }),
          ],
        },
      ],
    },
    {
      packageId: CATALOG.suinsPackage,
      modules: [
        {
          name: 'suins_registration',
          datatypes: [struct('SuinsRegistration', KEY_STORE, [['id', UID], ['domain_name', STRING], ['expiration_timestamp_ms', 'u64'], ['image_url', STRING]])],
          functions: [],
        },
      ],
    },
  ];
}
