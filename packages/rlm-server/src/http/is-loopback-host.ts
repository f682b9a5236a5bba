import { isIP } from 'node:net';

/**
 * Whether binding to `host` only accepts connections from this machine: `localhost`, an IPv4
 * address in 127.0.0.0/8, or `::1`. Anything else (`0.0.0.0`, `::`, a LAN address, a name)
 * may be reached from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}
