/**
 * The baseline of the files benchmark: the practical limit of this machine for the same work,
 * written as plainly as Node allows. PUT streams the request body to a file while hashing it with
 * SHA-256; GET serves a file with a plain read stream. Run as its own process so its memory and
 * CPU are measured like Agora's: `node bench/baseline-server.js <dir> [--fsync]` prints its port.
 * With --fsync an upload is flushed to disk (fsync) before it is answered: the durability
 * docs/files-api.md §13 requires of Agora (bytes complete and durable before the metadata), for comparison.
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const { Transform } = require('node:stream');

const dir = process.argv[2];
const durable = process.argv.includes('--fsync');
fs.mkdirSync(dir, { recursive: true });

const server = http.createServer(async (req, res) => {
  const name = path.basename(decodeURIComponent(req.url.split('?')[0]));
  const file = path.join(dir, name);
  try {
    if (req.method === 'PUT') {
      const hash = crypto.createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk, _enc, cb) {
          hash.update(chunk);
          size += chunk.length;
          cb(null, chunk);
        },
      });
      await pipeline(req, tap, fs.createWriteStream(file));
      if (durable) {
        const fh = await fs.promises.open(file, 'r+');
        await fh.sync();
        await fh.close();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ size, sha256sum: hash.digest('hex') }));
    } else if (req.method === 'GET') {
      const st = await fs.promises.stat(file);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': st.size });
      await pipeline(fs.createReadStream(file), res);
    } else {
      res.writeHead(405).end();
    }
  } catch (err) {
    if (!res.headersSent) res.writeHead(err.code === 'ENOENT' ? 404 : 500);
    res.end();
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
