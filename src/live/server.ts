/**
 * GraphQL over WebSocket (graphql-transport-ws, the `graphql-ws` package) on the HTTP server's
 * own port and path: an upgrade request to /graphql becomes a live connection.
 *
 * - Authentication: `connectionParams.authorization` ("Bearer <token>", or the bare token; also
 *   `token`). An invalid token closes the socket with 4403 after connection_init; none = anonymous.
 *   The socket closes with 4403 when the token expires, and within a feed tick when it is revoked
 *   (log out everywhere, password change, ban, deletion: src/live/hub.ts).
 * - Only subscriptions run here (queries and mutations go to POST /graphql), under the same
 *   document limits as HTTP. At most LIVE_MAX_SUBSCRIPTIONS per connection and
 *   LIVE_MAX_CONNECTIONS_PER_ADDRESS connections per client address (429 on the upgrade).
 * - A ping every LIVE_KEEPALIVE seconds; no pong by the next one drops the connection.
 * - Shutdown (Fastify's preClose): no new connections, the feed stops, messages already queued
 *   are sent (bounded by SHUTDOWN_TIMEOUT), then every socket closes with 1001.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { WebSocketServer, type WebSocket } from 'ws';
import { makeServer, type ServerOptions } from 'graphql-ws';
import type { Config } from '../config';
import type { Actor } from '../core/actor';
import { ANONYMOUS } from '../core/actor';
import { forwardedView, proxyTrust, type ForwardedView } from '../core/proxy-trust';
import type { EventServices } from '../events';
import type { Metrics } from '../metrics';
import type { Services } from '../services';
import { makeFormatError } from '../graphql/errors';
import { checkCost, depthLimitRule, documentLimitsRule } from '../graphql/limits';
import { topicIdsOf } from '../graphql/cost';
import { topicSizes } from '../graphql/topic-sizes';
import { buildGraphQLSchema } from '../graphql/schema';
import type { LiveGraphQLContext } from '../graphql/subscriptions/resolver';
import { CLOSE, LiveConnection } from './connection';
import { LiveHub } from './hub';
import { sharedSubscribe } from './shared-execution';

export interface LiveServerDeps {
  config: Config;
  services: Services;
  metrics: Metrics;
  events: EventServices;
}

export interface LiveServer {
  hub: LiveHub;
  /** Graceful: queued messages first, then 1001 on every socket. */
  close(): Promise<void>;
}

const PATH = '/graphql';

export function attachLive(app: FastifyInstance, deps: LiveServerDeps): LiveServer {
  const { config, services, metrics, events } = deps;
  const hub = new LiveHub({
    services,
    feed: events.feed,
    log: events.log,
    metrics,
    config: config.live,
    logger: app.log,
  });
  hub.start();
  const schema = buildGraphQLSchema();
  const formatError = makeFormatError(app.log);
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimit });
  const perAddress = new Map<string, number>();
  const connections = new WeakMap<WebSocket, LiveConnection>();
  let closing = false;
  // TRUST_PROXY's one rule, as Fastify applies it to HTTP requests (src/core/proxy-trust.ts).
  const trust = proxyTrust(config);
  // Read once per connection, at the upgrade: its address, host and scheme do not change after.
  const views = new WeakMap<IncomingMessage, ForwardedView>();
  const viewOf = (req: IncomingMessage) => views.get(req) ?? forwardedView(req, trust);

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== PATH) return refuse(socket, 404, 'Not Found');
    if (closing) return refuse(socket, 503, 'Service Unavailable');
    const view = forwardedView(req, trust);
    views.set(req, view);
    const address = view.ip;
    const open = perAddress.get(address) ?? 0;
    if (open >= config.live.maxConnectionsPerAddress) {
      metrics.liveDropped.inc({ reason: 'limit' });
      return refuse(socket, 429, 'Too Many Requests');
    }
    perAddress.set(address, open + 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      const n = (perAddress.get(address) ?? 1) - 1;
      if (n <= 0) perAddress.delete(address);
      else perAddress.set(address, n);
    };
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.once('close', () => {
        release();
        const conn = connections.get(ws);
        if (conn) hub.remove(conn);
      });
      wss.emit('connection', ws, req);
    });
  });

  type Extra = { socket: WebSocket; request: IncomingMessage };
  const options: ServerOptions<Record<string, unknown> | undefined, Extra> = {
    schema,
    onConnect: async (ctx) => {
      const token = tokenOf(ctx.connectionParams);
      let actor: Actor = ANONYMOUS;
      if (token !== null) {
        try {
          actor = await services.discussion.auth.actorForToken(token);
        } catch {
          return false; // graphql-ws closes with 4403 Forbidden
        }
      }
      const conn = new LiveConnection(ctx.extra.socket, viewOf(ctx.extra.request).ip, actor, token);
      if (token !== null) conn.expireAt(expiryOf(token));
      connections.set(ctx.extra.socket, conn);
      if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
      await hub.add(conn);
      return true;
    },
    onSubscribe: async (ctx, _id, payload) => {
      if (Object.keys(ctx.subscriptions).length > config.live.maxSubscriptionsPerConnection) {
        return [
          new GraphQLError(
            `Too many subscriptions on this connection (at most ${config.live.maxSubscriptionsPerConnection})`,
            { extensions: { code: 'TOO_MANY_REQUESTS' } },
          ),
        ];
      }
      const checked = checkDocument(payload.query);
      if (Array.isArray(checked)) return checked;
      const document = checked;
      const operation = getOperationAST(document, payload.operationName ?? undefined);
      // graphql-ws's own refusal of this case carries no code; HTTP's says the same with one.
      if (!operation) {
        return [
          new GraphQLError(
            payload.operationName
              ? `Unknown operation named "${payload.operationName}".`
              : 'Must provide operation name if query contains multiple operations.',
            { extensions: { code: 'BAD_REQUEST' } },
          ),
        ];
      }
      if (operation.operation !== 'subscription') {
        return [
          new GraphQLError('Only subscriptions run over WebSocket: send queries and mutations to POST /graphql', {
            extensions: { code: 'BAD_REQUEST' },
          }),
        ];
      }
      // Variables that do not coerce are refused before anything runs, as over HTTP (BAD_USER_INPUT).
      const variables = getVariableValues(schema, operation.variableDefinitions ?? [], payload.variables ?? {});
      if (variables.errors) {
        return variables.errors.map(
          (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'BAD_USER_INPUT' } }),
        );
      }
      // The cost limit of HTTP, with the topic's size now; each event checks it again with the size
      // then (src/graphql/subscriptions/resolver.ts).
      const actor = connections.get(ctx.extra.socket)?.actor ?? ANONYMOUS;
      const sizes = await topicSizes(
        services.discussion,
        topicIdsOf(document, payload.operationName ?? undefined, payload.variables ?? {}),
        (ids) => services.discussion.topics.findByIds(actor, ids),
      );
      const cost = checkCost(
        schema,
        document,
        payload.operationName ?? undefined,
        payload.variables ?? undefined,
        { maxCost: config.graphql.maxCost, maxSelections: config.graphql.maxSelections },
        sizes,
      );
      if (cost instanceof GraphQLError) return [withoutHttp(cost)];
      return {
        schema,
        document,
        operationName: payload.operationName ?? undefined,
        variableValues: payload.variables ?? undefined,
      };
    },
    // Identical operations of one viewer share each event's execution (shared-execution.ts).
    subscribe: (args) => {
      const ctx = args.contextValue as LiveGraphQLContext;
      const a = ctx.actor;
      const viewer = a.kind === 'user' ? `u${a.userId}:${a.isAdmin ? 1 : 0}` : 'anonymous';
      const variables = JSON.stringify(args.variableValues ?? {});
      const key = `${viewer}\n${args.operationName ?? ''}\n${variables}\n${textOf(args.document)}`;
      return sharedSubscribe(args, key);
    },
    context: (ctx) => {
      const conn = connections.get(ctx.extra.socket)!;
      const context: LiveGraphQLContext = {
        actor: conn.actor,
        services,
        config,
        request: pseudoRequest(ctx.extra.request, viewOf(ctx.extra.request)),
        // No HTTP reply exists; no subscription field uses it (uploads run over HTTP only).
        reply: undefined as unknown as FastifyReply,
        loaders: new Map(),
        live: { hub, connection: conn },
      };
      return context as unknown as Record<string, unknown>;
    },
    onNext: (_ctx, _id, _payload, _args, result) => {
      const r = result as ExecutionResult;
      if (!r.errors) return undefined;
      const errors = r.errors.map((e) => {
        const f = formatError(e.toJSON(), e);
        // No HTTP status applies to a WebSocket message.
        const { http: _http, ...extensions } = f.extensions ?? {};
        return { ...f, extensions };
      });
      return { ...r, errors } as unknown as ExecutionResult;
    },
  };
  const protocol = makeServer(options);
  wss.options.handleProtocols = (protocols) => (protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : false);
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => serve(socket, request));

  /** One socket through graphql-ws' protocol handler, with a ping that drops unanswering clients. */
  function serve(socket: WebSocket, request: IncomingMessage): void {
    let alive = true;
    socket.on('pong', () => {
      alive = true;
    });
    const ping = setInterval(() => {
      if (!alive) {
        metrics.liveDropped.inc({ reason: 'idle' });
        socket.terminate();
        return;
      }
      alive = false;
      if (socket.readyState === socket.OPEN) socket.ping();
    }, config.live.keepAliveMs);
    ping.unref();
    socket.on('error', (err) => app.log.debug({ err }, 'live socket error'));
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data) => {
            cb(String(data)).catch((err) => {
              app.log.error({ err }, 'live message handling failed');
              socket.close(4500, 'Internal server error');
            });
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      void closed(code, String(reason));
    });
  }

  /**
   * Parsed and validated documents by their text: front ends open many subscriptions with the same
   * few operations, and a document is immutable once parsed. Bounded by bytes (the text and the
   * parsed document's JSON, as Apollo measures its own document store); the least used goes first.
   */
  const documents = new LRUCache<string, DocumentNode | GraphQLError[]>({
    maxSize: config.graphql.liveDocumentCacheBytes,
    sizeCalculation: (checked, query) => Math.max(1, 2 * query.length + Buffer.byteLength(JSON.stringify(checked))),
  });
  const rules = [...specifiedRules, documentLimitsRule(config.graphql), depthLimitRule(config.graphql.maxDepth)];
  function checkDocument(query: string): DocumentNode | GraphQLError[] {
    const known = documents.get(query);
    if (known) return known;
    let checked: DocumentNode | GraphQLError[];
    try {
      const document = parse(query, { maxTokens: config.graphql.maxTokens });
      const errors = validate(schema, document, rules);
      checked =
        errors.length === 0
          ? document
          : errors.map(
              (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
            );
    } catch (err) {
      checked = [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    documents.set(query, checked);
    return checked;
  }
  const printed = new WeakMap<DocumentNode, string>();
  const textOf = (document: DocumentNode): string => {
    let text = printed.get(document);
    if (text === undefined) printed.set(document, (text = print(document)));
    return text;
  };

  const live: LiveServer = {
    hub,
    async close() {
      if (closing) return;
      closing = true;
      // Within the shutdown grace period: what was recorded before shutdown still goes out (read from
      // the log, executed for each subscriber), then the messages queued or being written.
      const deadline = Date.now() + Math.min(config.shutdownTimeoutMs, 10_000);
      await Promise.race([
        events.feed.drain().catch(() => {}),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref()),
      ]);
      hub.stop();
      while (hub.pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const conn of hub.connections) conn.dispose();
      const gone = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            ws.close(CLOSE.GOING_AWAY, 'Server shutting down');
            // A client that does not answer the close handshake is cut off.
            setTimeout(() => {
              ws.terminate();
              resolve();
            }, 2000).unref();
          }),
      );
      await Promise.all(gone);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  app.addHook('preClose', async () => {
    await live.close();
  });
  return live;
}

/** An error as a WebSocket message carries it: no HTTP status applies. */
function withoutHttp(e: GraphQLError): GraphQLError {
  const { http: _http, ...extensions } = e.extensions;
  return new GraphQLError(e.message, { nodes: e.nodes, extensions });
}

function refuse(socket: Duplex, status: number, reason: string): void {
  const body = JSON.stringify({ error: reason });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** The bearer token of connection_init's payload: `authorization` ("Bearer …" or bare) or `token`. */
export function tokenOf(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params) return null;
  const raw = params.authorization ?? params.Authorization ?? params.token;
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const m = /^Bearer\s+(.+)$/i.exec(raw.trim());
  return m ? m[1]!.trim() : raw.trim();
}

/** `exp` of a JWT already verified (seconds since the epoch). */
function expiryOf(token: string): number | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof claims.exp === 'number' ? claims.exp : undefined;
  } catch {
    return undefined;
  }
}

/** What resolvers read from a request (links' scheme and host, the client address, headers). */
function pseudoRequest(req: IncomingMessage, view: ForwardedView): FastifyRequest {
  return {
    headers: req.headers,
    ip: view.ip,
    protocol: view.protocol,
    host: view.host,
    hostname: view.host.replace(/:\d+$/, ''),
    body: undefined,
  } as unknown as FastifyRequest;
}
