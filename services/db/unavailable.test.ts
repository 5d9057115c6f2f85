import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './unavailable.js';

const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('isDatabaseUnavailable: the database out of reach, not the query wrong', () => {
  it.each([
    ['a terminated backend (57P01)', failure('terminating connection due to administrator command', '57P01')],
    ['a crash shutdown (57P02)', failure('terminating connection because of crash of another server process', '57P02')],
    ['a server starting up (57P03)', failure('the database system is starting up', '57P03')],
    ['a connection failure (08006)', failure('connection failure', '08006')],
    ['too many connections (53300)', failure('sorry, too many clients already', '53300')],
    ['a refused socket', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset socket', failure('read ECONNRESET', 'ECONNRESET')],
    ['an unresolvable host', failure('getaddrinfo ENOTFOUND db', 'ENOTFOUND')],
    ['node-postgres: the connection ended', failure('Connection terminated unexpectedly')],
    ['node-postgres: the pool timed out connecting', failure('timeout exceeded when trying to connect')],
  ])('%s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error (42601)', failure('syntax error at or near "x"', '42601')],
    ['a unique violation (23505)', failure('duplicate key value violates unique constraint', '23505')],
    ['a serialization failure (40001)', failure('could not serialize access', '40001')],
    ['an error without a code', failure('something else')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ])('not: %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
