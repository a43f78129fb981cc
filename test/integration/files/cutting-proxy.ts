/**
 * A loopback HTTP proxy in front of a test server that breaks uploads on purpose: after every
 * `cutEvery` bytes of PATCH bodies it forwarded, it destroys both connections mid-request (a
 * flaky link, or a proxy that caps a request's size). It also serves fixed pages (`pages`), so a
 * browser loads them from the same origin as the uploads go to.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** Connections cut so far. */
  cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(
  target: string,
  cutEvery: number,
  pages: Record<string, { type: string; body: string | Buffer }> = {},
): Promise<CuttingProxy> {
  const upstream = new URL(target);
  let sinceCut = 0;
  const state = { cuts: 0 };
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (page && req.method === 'GET') return void res.writeHead(200, { 'content-type': page.type }).end(page.body);
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.on('data', (chunk: Buffer) => {
      if (req.method !== 'PATCH' && req.method !== 'POST') return void out.write(chunk);
      const room = cutEvery - sinceCut;
      if (chunk.length < room) {
        sinceCut += chunk.length;
        return void out.write(chunk);
      }
      // The cut: what fits goes through, then both sides lose their connection.
      out.write(chunk.subarray(0, room));
      sinceCut = 0;
      state.cuts++;
      req.pause();
      setTimeout(() => {
        out.destroy();
        req.socket.destroy();
      }, 50);
    });
    req.on('end', () => out.end());
    req.on('error', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get cuts() {
      return state.cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
