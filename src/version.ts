/** The package version, read once from package.json (works from src/ under Jest and from dist/). */
import fs from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, rel), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agora' && pkg.version) return pkg.version;
    } catch {
      /* try the next */
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
