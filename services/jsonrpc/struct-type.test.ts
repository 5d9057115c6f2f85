import { describe, expect, it } from 'vitest';
import { structTypeError } from './struct-type.js';

/** The node's messages are sui-json-rpc's coin_api tests' (`test_invalid_coin_type`, `test_unrecognized_token`). */
describe('structTypeError (parse_sui_struct_tag)', () => {
  it.each([
    '0x2::sui::SUI',
    '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI',
    '0x2::coin::Coin<0x2::sui::SUI>',
    '0x2::dynamic_field::Field<u64, vector<0x2::sui::SUI>>',
    ' 0x2 :: sui :: SUI ',
    '0x2::table::Table<address, bool,>',
  ])('accepts %j', (text) => {
    expect(structTypeError(text)).toBeUndefined();
  });

  it.each([
    ['0x2::invalid::struct::tag', 'Invalid struct type: 0x2::invalid::struct::tag. Got error: Expected end of token stream. Got: ::'],
    ['0x2::sui:🤵', 'Invalid struct type: 0x2::sui:🤵. Got error: unrecognized token: :🤵'],
    ['0x2::sui::SUI\u0000', 'Invalid struct type: 0x2::sui::SUI\\u0000. Got error: unrecognized token: \\u0000'],
    ['0x2::sui::SUI>', 'Invalid struct type: 0x2::sui::SUI>. Got error: Expected end of token stream. Got: >'],
    ['0x2::sui::', 'Invalid struct type: 0x2::sui::. Got error: unexpected end of tokens'],
    ['0x2::sui::SUI x', 'Invalid struct type: 0x2::sui::SUI x. Got error: Expected end of token stream. Got: x'],
    ['0x2::coin::Coin<0x2::sui::SUI', 'Invalid struct type: 0x2::coin::Coin<0x2::sui::SUI. Got error: unexpected end of tokens'],
    ['u64', 'Invalid struct type: u64'],
    ['', 'Invalid struct type: . Got error: unexpected end of tokens'],
  ])('refuses %j: %s', (text, message) => {
    expect(structTypeError(text)).toBe(message);
  });
});
