import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * A host as the network sees it: an IP address in its one canonical spelling, or a DNS name.
 * Every spelling that reaches the same address must reach the same decision, so the check runs
 * on this form only: `localhost.` is `localhost`, `0x7f.1` and `2130706433` are `127.0.0.1`,
 * `::ffff:127.0.0.1` (IPv4-mapped) and `::127.0.0.1` (IPv4-compatible) are `127.0.0.1`.
 */
export type CanonicalHost = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

/** The host of a URL or of a connection (brackets, case and one trailing dot allowed). */
export function canonicalHost(host: string): CanonicalHost {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
  const v4 = parseIPv4Number(bare);
  if (v4 !== undefined) return { kind: 'ip', address: v4 };
  if (isIPv6(bare)) return { kind: 'ip', address: canonicalIPv6(ipaddr.IPv6.parse(bare)) };
  return { kind: 'name', name: bare };
}

/**
 * Whether an address may be reached: public unicast, or on the allowed list (IPs or CIDRs).
 * The one rule for both moments: when a URL is set and when a delivery connects.
 */
export function isAddressAllowed(address: string, allowedAddresses: readonly string[]): boolean {
  const host = canonicalHost(address);
  if (host.kind !== 'ip') return false;
  const parsed = ipaddr.parse(host.address);
  const listed = allowedAddresses.some((entry) => {
    if (!entry.includes('/')) return sameAddress(canonicalHost(entry), host.address);
    const range = ipaddr.parseCIDR(entry);
    return range[0].kind() === parsed.kind() && parsed.match(range);
  });
  return listed || parsed.range() === 'unicast';
}

/**
 * Whether a host may be reached as far as its spelling tells: an IP by the address rule,
 * `localhost` and its subdomains as loopback (RFC 6761: they never leave the machine), any other
 * name yes (its addresses are checked when it is resolved, at connection time).
 */
export function isHostAllowed(host: string, allowedAddresses: readonly string[]): boolean {
  const canonical = canonicalHost(host);
  if (canonical.kind === 'ip') return isAddressAllowed(canonical.address, allowedAddresses);
  if (canonical.name === 'localhost' || canonical.name.endsWith('.localhost')) return isAddressAllowed('127.0.0.1', allowedAddresses);
  return true;
}

/**
 * The inet_aton forms C resolvers and some URL parsers accept: one to four parts, each decimal,
 * octal (leading 0) or hex (0x), the last part filling the remaining bytes (`127.1`, `0x7f000001`).
 */
function parseIPv4Number(host: string): string | undefined {
  if (isIPv4(host)) return host;
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((part) => !/^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/.test(part))) return undefined;
  const numbers = parts.map((part) => (part.startsWith('0x') ? parseInt(part.slice(2) || '0', 16) : part.length > 1 && part.startsWith('0') ? parseInt(part, 8) : Number(part)));
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255) || last >= 2 ** (8 * (4 - numbers.length))) return undefined;
  let value = last;
  numbers.forEach((n, i) => { value += n * 2 ** (8 * (3 - i)); });
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d, deprecated) addresses are the IPv4 address. */
function canonicalIPv6(address: ipaddr.IPv6): string {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const [high, low] = address.parts.slice(6) as [number, number];
  // :: and ::1 share the prefix but are the unspecified and loopback addresses, not IPv4.
  const compatible = address.parts.slice(0, 6).every((word) => word === 0) && (high !== 0 || low > 1);
  if (!compatible) return address.toString();
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function sameAddress(entry: CanonicalHost, address: string): boolean {
  return entry.kind === 'ip' && entry.address === address;
}
