import * as dns from 'node:dns';
import * as net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The outbound address policy of the connection test: only public unicast
 * addresses are reachable unless MCP_ALLOW_PRIVATE_NETWORKS=true.
 *
 * ipaddr.js classifies the address; everything but `unicast` is refused:
 * loopback, private (RFC 1918), link-local (169.254.0.0/16, which holds the
 * cloud metadata address 169.254.169.254; fe80::/10), unique-local (fc00::/7,
 * which holds AWS's fd00:ec2::254), carrier-grade NAT (100.64.0.0/10, which
 * holds Alibaba's 100.100.100.200), reserved and benchmarking ranges,
 * multicast, unspecified, and the IPv6 forms that embed an IPv4 address
 * (6to4, Teredo, NAT64). IPv4-mapped IPv6 is judged by its IPv4 address.
 */
export function blockedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/** Refused by the address policy; carries the host and address for the message. */
export class BlockedAddressError extends Error {
  readonly code = 'EMCPBLOCKED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(address === host ? `${host} is a ${range} address` : `${host} resolves to ${address}, a ${range} address`);
    this.name = 'BlockedAddressError';
  }
}

/** An IP literal of a URL's hostname (`[::1]` → `::1`), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : undefined;
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * A `lookup` for sockets (net/tls `connect`, undici's `connect` option) that
 * resolves a name ONCE per test, refuses it when any of its addresses is
 * blocked, and then answers every later connection to that name with the same
 * checked addresses. The address the socket connects to is therefore the
 * address that was checked: a DNS answer that changes between the check and
 * the connection (DNS rebinding) cannot slip a private address in, because
 * no second resolution happens. TLS still uses the URL's name for SNI and
 * certificate checks, and the Host header is unchanged: only name resolution
 * is pinned.
 */
export class PinnedLookup {
  private readonly pinned = new Map<string, Promise<LookupAddress[]>>();

  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** Throws BlockedAddressError for an IP literal outside policy (sockets do not call `lookup` for literals). */
  checkLiteral(hostname: string): void {
    const literal = ipLiteral(hostname);
    if (literal === undefined || this.allowPrivate) return;
    const range = blockedRange(literal);
    if (range) throw new BlockedAddressError(literal, literal, range);
  }

  /** The checked addresses of `hostname`, resolved once. */
  addresses(hostname: string): Promise<LookupAddress[]> {
    let entry = this.pinned.get(hostname);
    if (!entry) {
      entry = this.resolve(hostname).then((addresses) => {
        if (addresses.length === 0) throw Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND', hostname });
        if (!this.allowPrivate) {
          for (const { address } of addresses) {
            const range = blockedRange(address);
            if (range) throw new BlockedAddressError(hostname, address, range);
          }
        }
        return addresses;
      });
      this.pinned.set(hostname, entry);
    }
    return entry;
  }

  /** The `lookup` function for socket options. */
  readonly lookup = (hostname: string, options: dns.LookupOptions | number | undefined, callback: LookupCallback): void => {
    const opts = typeof options === 'object' && options !== null ? options : {};
    const family = typeof options === 'number' ? options : opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : (opts.family ?? 0);
    this.addresses(hostname).then(
      (all) => {
        const usable = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`No IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (opts.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
