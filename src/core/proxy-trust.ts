import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config';

/** Whether the hop at `address` (hop 0 is the peer) is a proxy whose X-Forwarded-* word counts. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * The one trust rule of TRUST_PROXY, given to Fastify for HTTP and used as it is by the WebSocket
 * door (src/live), which sees a bare upgrade request: a hop count trusts that many hops back from
 * the peer (TRUST_PROXY=true is one), an address list trusts those addresses and subnets only.
 */
export function proxyTrust(config: Config): ProxyTrust {
  if (!config.trustProxy) return () => false;
  const trust = config.proxyTrust;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile(trust.split(',').map((s) => s.trim()));
}

export interface ForwardedView {
  ip: string;
  host: string;
  protocol: string;
}

/** What Fastify's request.ip, .host and .protocol give for this raw request under that rule. */
export function forwardedView(req: IncomingMessage, trust: ProxyTrust): ForwardedView {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const fromProxy = trust(peer, 0);
  // The entry the trusted proxy appended is the last one (as Fastify reads it).
  const last = (name: string): string | undefined => {
    const v = fromProxy ? req.headers[name] : undefined;
    const s = Array.isArray(v) ? v.join(',') : v;
    return s ? s.slice(s.lastIndexOf(',') + 1).trim() || undefined : undefined;
  };
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted;
  return {
    ip: proxyAddr(req, trust) ?? peer,
    host: last('x-forwarded-host') ?? req.headers.host ?? 'localhost',
    protocol: last('x-forwarded-proto') ?? (encrypted ? 'https' : 'http'),
  };
}
