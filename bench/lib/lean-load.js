/**
 * A lean HTTP/1.1 load client for large bodies. autocannon parses every response body through its
 * HTTP parser and becomes the bottleneck on 1 MiB bodies (it measured ~52 req/s against a server
 * that wrk drives at ~639 req/s on this machine), so the files benchmark uses this instead: raw
 * `net` sockets with keep-alive, one request in flight per connection, a prepared request buffer
 * (headers + body, written once per request), and responses parsed only as far as the status line,
 * Content-Length / chunked framing; body bytes are counted and dropped.
 */
'use strict';
const net = require('node:net');
const { median } = require('./stats');

const CRLFCRLF = Buffer.from('\r\n\r\n');

const readBuffer = () => Buffer.allocUnsafe(1 << 20);

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The bytes of one request: request line, headers, Content-Length, body. */
function prepareRequest(url, { method = 'GET', headers = {}, body = null } = {}) {
  const u = new URL(url);
  const lines = [`${method} ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, 'Connection: keep-alive'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return { host: u.hostname, port: Number(u.port || 80), bytes: body ? Buffer.concat([head, body]) : head };
}

/**
 * Parses responses from a byte stream: calls onResponse(status, bodyBytes, close) per response.
 * Only framing is interpreted; header values other than Content-Length, Transfer-Encoding and
 * Connection are ignored.
 */
class ResponseParser {
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.reset();
  }

  reset() {
    this.state = 'head';
    this.head = null;
    this.status = 0;
    this.remaining = 0;
    this.bodyBytes = 0;
    this.close = false;
    this.chunkState = 'size';
    this.line = '';
  }

  push(buf) {
    let off = 0;
    while (off < buf.length) {
      if (this.state === 'head') {
        const data = this.head ? Buffer.concat([this.head, buf.subarray(off)]) : buf.subarray(off);
        const end = data.indexOf(CRLFCRLF);
        if (end < 0) {
          this.head = Buffer.from(data);
          return;
        }
        const consumedFromBuf = end + 4 - (this.head ? this.head.length : 0);
        const text = data.toString('latin1', 0, end);
        this.head = null;
        off += consumedFromBuf;
        this.status = Number(text.slice(9, 12));
        const lower = text.toLowerCase();
        const cl = /\r\ncontent-length:\s*(\d+)/.exec(lower);
        this.close = /\r\nconnection:\s*close/.test(lower);
        if (/\r\ntransfer-encoding:\s*chunked/.test(lower)) {
          this.state = 'chunked';
          this.chunkState = 'size';
          this.line = '';
        } else {
          this.remaining = cl ? Number(cl[1]) : 0;
          this.state = 'body';
          if (this.remaining === 0) this.finish();
        }
      } else if (this.state === 'body') {
        const take = Math.min(this.remaining, buf.length - off);
        this.remaining -= take;
        this.bodyBytes += take;
        off += take;
        if (this.remaining === 0) this.finish();
      } else {
        off = this.pushChunked(buf, off);
      }
    }
  }

  pushChunked(buf, off) {
    while (off < buf.length && this.state === 'chunked') {
      if (this.chunkState === 'size' || this.chunkState === 'crlf' || this.chunkState === 'trailer') {
        const nl = buf.indexOf(10, off);
        if (nl < 0) {
          this.line += buf.toString('latin1', off);
          return buf.length;
        }
        const line = (this.line + buf.toString('latin1', off, nl)).replace(/\r$/, '');
        this.line = '';
        off = nl + 1;
        if (this.chunkState === 'crlf') this.chunkState = 'size';
        else if (this.chunkState === 'trailer') {
          if (line === '') this.finish();
        } else {
          const size = parseInt(line, 16);
          if (size === 0) this.chunkState = 'trailer';
          else {
            this.remaining = size;
            this.chunkState = 'data';
          }
        }
      } else {
        const take = Math.min(this.remaining, buf.length - off);
        this.remaining -= take;
        this.bodyBytes += take;
        off += take;
        if (this.remaining === 0) this.chunkState = 'crlf';
      }
    }
    return off;
  }

  finish() {
    const { status, bodyBytes, close } = this;
    this.reset();
    this.onResponse(status, bodyBytes, close);
  }
}

/**
 * Runs load: `connections` sockets, each sending the prepared request again as soon as the
 * previous response is complete, until `amount` requests were answered in total or `duration`
 * seconds passed. Resolves { requests, seconds, requestsPerSecond, p50Ms, p99Ms, bodyBytes,
 * non2xx, errors }.
 */
function run({ url, method, headers, body, connections = 8, amount, duration, timeout = 30 }) {
  const req = prepareRequest(url, { method, headers, body });
  const latencies = [];
  let started = 0;
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  let bodyBytes = 0;
  const t0 = process.hrtime.bigint();
  const deadline = duration ? Number(t0) + duration * 1e9 : Infinity;
  const wantMore = () => (amount === undefined || started < amount) && Number(process.hrtime.bigint()) < deadline;

  return new Promise((resolve) => {
    let open = 0;
    const finishAll = () => {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const sorted = latencies.slice().sort((a, b) => a - b);
      resolve({
        requests: done,
        seconds,
        requestsPerSecond: done / seconds,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        meanMs: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
        bodyBytes,
        non2xx,
        errors,
      });
    };
    const connect = () => {
      if (!wantMore()) {
        if (open === 0) finishAll();
        return;
      }
      open++;
      let parser;
      // Reads land in one reused buffer (no allocation per chunk): the client stays lean.
      const socket = net.connect({
        port: req.port,
        host: req.host,
        onread: { buffer: readBuffer(), callback: (n, buf) => void parser.push(buf.subarray(0, n)) },
      });
      socket.setNoDelay(true);
      let sentAt = 0n;
      let inFlight = false;
      let timer;
      const send = () => {
        if (!wantMore()) return socket.end();
        started++;
        inFlight = true;
        sentAt = process.hrtime.bigint();
        timer = setTimeout(() => {
          errors++;
          socket.destroy();
        }, timeout * 1000);
        socket.write(req.bytes);
      };
      parser = new ResponseParser((status, bytes, close) => {
        clearTimeout(timer);
        inFlight = false;
        done++;
        bodyBytes += bytes;
        latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
        if (status < 200 || status > 299) non2xx++;
        if (close) socket.end();
        else send();
      });
      socket.on('connect', send);
      socket.on('error', () => {
        if (inFlight) errors++;
        inFlight = false;
      });
      socket.on('close', () => {
        clearTimeout(timer);
        open--;
        if (inFlight) errors++;
        // A server that closed the connection: carry on with a new one while there is work.
        if (wantMore()) connect();
        else if (open === 0) finishAll();
      });
    };
    for (let i = 0; i < connections; i++) connect();
  });
}

/** `runs` runs of `opts`; medians of requests/s, p50, p99 (like load.measure for autocannon). */
async function measure(opts, runs = 3, round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await run(opts));
  return {
    requestsPerSecond: round(median(results.map((r) => r.requestsPerSecond))),
    p50Ms: round(median(results.map((r) => r.p50Ms)), 2),
    p99Ms: round(median(results.map((r) => r.p99Ms)), 2),
    bytesPerSecond: Math.round(median(results.map((r) => r.bodyBytes / r.seconds))),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    runs,
  };
}

module.exports = { run, measure, prepareRequest, ResponseParser };
