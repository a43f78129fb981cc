/**
 * Live-update test helpers: a second Agora instance on the test server's database, a graphql-ws
 * client (the package front ends use) collecting what a subscription sends, and a raw socket
 * for what the client library hides (close codes).
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { Agora, createAgora, withDatabaseName } from '../../src/server';
import { loadConfig } from '../../src/config';
import { TEST_JWT_SECRET, TestServer } from './server';

export interface Instance {
  url: string;
  wsUrl: string;
  agora: Agora;
  close(): Promise<void>;
}

export function wsUrlOf(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/graphql`;
}

/** Another Agora process-equivalent (own app, own connection pool, own feed) on the same database. */
export async function startSecondInstance(s: TestServer, env: Record<string, string> = {}): Promise<Instance> {
  const config = env && Object.keys(env).length > 0 ? loadConfig({ ...configEnv(s), ...env }) : s.config;
  const agora = await createAgora(config, {
    mongoUri: withDatabaseName(process.env.MONGODB_URI!, s.agora.db.conn.name),
    databaseKind: process.env.AGORA_TEST_DATABASE_KIND ?? 'external',
    jwtSecret: TEST_JWT_SECRET,
    processMetrics: false,
  });
  await agora.app.listen({ host: '127.0.0.1', port: 0 });
  await agora.start();
  const addr = agora.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return { url, wsUrl: wsUrlOf(url), agora, close: () => agora.close() };
}

function configEnv(s: TestServer): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'silent',
    DATA_DIR: s.config.dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO_SEED: 'false',
    FILES_CLEANUP_INTERVAL: '0',
    FILES_UPLOAD_RATE_LIMIT: '0',
    REGISTRATION_RATE_LIMIT: '0',
    TOPIC_RATE_LIMIT: '0',
    COMMENT_RATE_LIMIT: '0',
    VOTE_RATE_LIMIT: '0',
    LABEL_RATE_LIMIT: '0',
    FILES_KEY_CHECK_LIMIT: '0',
  };
}

/**
 * The holes the live feed of the app at `url` skipped (live_events_gaps_skipped_total, from
 * /metrics): the live tests expect 0 on every instance.
 */
export async function skippedGaps(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^live_events_gaps_skipped_total (\d+)$/m.exec(text);
  if (!m) throw new Error('/metrics has no live_events_gaps_skipped_total');
  return Number(m[1]);
}

export type Json = any;

/** What one subscription received. */
export class Collector {
  readonly messages: Json[] = [];
  readonly errors: Json[] = [];
  completed = false;
  private waiters: (() => void)[] = [];

  add(kind: 'message' | 'error' | 'complete', value?: Json): void {
    if (kind === 'message') this.messages.push(value);
    else if (kind === 'error') this.errors.push(value);
    else this.completed = true;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `check` holds, or fails after `ms` with what arrived. */
  async until(check: () => boolean, ms = 5000, what = 'a message'): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      const left = end - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${what}; got ${JSON.stringify({ messages: this.messages, errors: this.errors })}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits for `n` messages in all and returns them. */
  async count(n: number, ms = 5000): Promise<Json[]> {
    await this.until(() => this.messages.length >= n, ms, `${n} message(s)`);
    return this.messages;
  }

  /** The data of each message (the subscription's single root field). */
  events(): Json[] {
    return this.messages.map((m) => Object.values(m.data ?? {})[0]);
  }
}

export interface LiveClient {
  client: Client;
  closes: { code: number; reason: string }[];
  subscribe(query: string, variables?: Record<string, unknown>): { got: Collector; stop: () => void };
  dispose(): Promise<void>;
}

export function liveClient(wsUrl: string, token?: string): LiveClient {
  const closes: { code: number; reason: string }[] = [];
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
    on: {
      closed: (e) =>
        closes.push({ code: (e as { code: number }).code, reason: String((e as { reason: unknown }).reason) }),
    },
  });
  return {
    client,
    closes,
    subscribe(query, variables) {
      const got = new Collector();
      const stop = client.subscribe(
        { query, variables },
        {
          next: (m) => got.add('message', m),
          error: (e) => got.add('error', e),
          complete: () => got.add('complete'),
        },
      );
      return { got, stop };
    },
    dispose: async () => {
      await client.dispose();
    },
  };
}

/** A socket speaking the protocol by hand; resolves with the close code and reason. */
export function rawSocket(
  wsUrl: string,
  init: Json | null,
  protocol = 'graphql-transport-ws',
): {
  ws: WebSocket;
  received: Json[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  send(m: Json): void;
} {
  const ws = new WebSocket(wsUrl, protocol);
  const received: Json[] = [];
  ws.on('message', (d) => received.push(JSON.parse(String(d))));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      if (init) ws.send(JSON.stringify(init));
      resolve();
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return { ws, received, opened, closed, send: (m) => ws.send(JSON.stringify(m)) };
}
