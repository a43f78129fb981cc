/**
 * Downloads through sendfile(2): the kernel sends an object's pages to the socket, with no copy
 * into the process and no read on libuv's thread pool (native/sendfile.c says how). Built by
 * `npm run build` (scripts/build-native.js) where a C compiler and Node's headers are present;
 * without the module, or with FILES_SENDFILE=false, downloads read and write as before.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { ServerResponse } from 'node:http';

export interface SendfileModule {
  /** Once it returns, `fileFd` is the module's: it closes it when the job ends. A throw leaves it the caller's. */
  start(socketFd: number, fileFd: number, offset: number, length: number): [Promise<number>, object];
  cancel(job: object): void;
}

/**
 * Where the build puts the module: dist/native, two levels above both src/storage and dist/storage.
 * AGORA_SENDFILE_MODULE names another build instead: the sanitized run of the download tests loads
 * one built with AddressSanitizer (scripts/sanitized-sendfile-check.sh).
 */
export const NATIVE_PATH =
  process.env.AGORA_SENDFILE_MODULE || path.resolve(__dirname, '..', '..', 'dist', 'native', 'sendfile.node');

let native: SendfileModule | null | undefined;
let loadError: string | undefined;

/** The native module, or null when it was not built (or does not load here). */
export function sendfileModule(): SendfileModule | null {
  if (native !== undefined) return native;
  native = null;
  if (process.platform === 'linux' && fs.existsSync(NATIVE_PATH)) {
    try {
      const loaded = { exports: {} };
      process.dlopen(loaded, NATIVE_PATH);
      native = loaded.exports as SendfileModule;
    } catch (err) {
      loadError = (err as Error).message;
      native = null;
    }
  }
  return native;
}

/** How downloads from disk go out, and why: the start-up log says it. */
export function downloadPath(enabled: boolean): string {
  const streams = 'read and written through Node';
  if (!enabled) return `${streams} (FILES_SENDFILE=false)`;
  if (process.platform !== 'linux') return `${streams} (sendfile(2) is used on Linux only)`;
  if (!fs.existsSync(NATIVE_PATH))
    return (
      `${streams} (no sendfile module at ${NATIVE_PATH}: \`npm run build\` builds it where a C compiler ` +
      "and Node's headers are present)"
    );
  if (!sendfileModule()) return `${streams} (the sendfile module does not load: ${loadError})`;
  return `sendfile(2), from the file to the socket (${NATIVE_PATH} loaded)`;
}

/**
 * The descriptor of `res`'s socket when the body can go to it directly: a plain TCP socket (not
 * TLS), a fixed-length body, nothing of this response or an earlier one still buffered in Node.
 */
export function directSocketFd(res: ServerResponse): number | undefined {
  const socket = res.socket;
  if (!(socket instanceof net.Socket) || 'encrypted' in socket) return undefined;
  if ((res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding) return undefined;
  if (socket.writableLength !== 0 || socket.destroyed) return undefined;
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Sends `length` bytes of `fileFd` from `offset` to `res`'s socket (whose fd `directSocketFd` gave,
 * after the head went out), and closes `fileFd` when done: it is handed over to the module when
 * this returns. Throws (synchronously, the descriptor still the caller's) when the module cannot
 * start; the promise rejects when the response closes first (ECANCELED), when the peer goes
 * (EPIPE, ECONNRESET) or when the file is shorter than the range (ESHORT).
 */
export function sendFileRange(
  mod: SendfileModule,
  res: ServerResponse,
  socketFd: number,
  fileFd: number,
  offset: number,
  length: number,
): Promise<void> {
  const [sent, job] = mod.start(socketFd, fileFd, offset, length);
  const cancel = () => mod.cancel(job);
  res.once('close', cancel);
  return sent.then(() => undefined).finally(() => res.off('close', cancel));
}
