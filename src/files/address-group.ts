/**
 * The unit a per-address share counts: an IPv4 address, or the /64 network of an IPv6 address (one
 * host is commonly given a whole /64, so counting single IPv6 addresses would let it take as many
 * shares as it likes). An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) counts as its IPv4 address.
 */
import net from 'node:net';

export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return address;
}

/** The eight groups of an IPv6 address, zone index dropped, as lowercase hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const bare = address.split('%')[0]!.toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const parts = (s: string | undefined) => (s ? s.split(':') : []);
  const front = parts(head);
  const back = parts(tail);
  // An embedded IPv4 tail (::1.2.3.4) stands for two groups.
  const last = back.length ? back : front;
  const v4 = last.length && last[last.length - 1]!.includes('.') ? last.pop()! : undefined;
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const fill = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...fill, ...back].map((g) => parseInt(g, 16).toString(16));
}
