/**
 * `Expect: 100-continue` for uploads. curl sends it for bodies over 1 MiB (`curl -T big.iso …`).
 * Node answers `100 Continue` on its own at once, so the client starts sending before the server
 * could refuse (API key, size, origin), and an early refusal then breaks its pipe. Upload routes
 * instead send `100 Continue` when they start reading the body; a refusal is the final answer the
 * client gets instead, and it sends nothing. Every other request keeps Node's behaviour.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { markBodyRead } from './unread-body';

const waiting = new WeakSet<IncomingMessage>();
const UPLOAD_PATH = /^\/upload(?:[/?]|$)/;
/** The methods that send an upload's bytes (PATCH: a resumable upload's, §4.9). */
const BODY_METHODS = new Set(['PUT', 'POST', 'PATCH']);

export function installExpectContinue(server: Server): void {
  // Someone else already decides (e.g. another plugin): keep theirs.
  if (server.listenerCount('checkContinue') > 0) return;
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (BODY_METHODS.has(req.method ?? '') && UPLOAD_PATH.test(req.url ?? '')) waiting.add(req);
    else res.writeContinue();
    server.emit('request', req, res);
  });
}

/** Sends `100 Continue` to a client that waits for it; call right before reading the body. */
export function continueReading(request: FastifyRequest, reply: FastifyReply): void {
  markBodyRead(request);
  if (waiting.delete(request.raw)) reply.raw.writeContinue();
}

/** Whether the client holds its body back until `100 Continue` (not sent yet). */
export function awaitsContinue(request: FastifyRequest): boolean {
  return waiting.has(request.raw);
}
