/** No Docker engine runs here, so the deployment files are checked for their wiring instead. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../../..');
type Service = { image?: string; build?: unknown; environment?: Record<string, string>; volumes?: string[]; healthcheck?: { test?: string[] }; depends_on?: Record<string, { condition?: string }>; ports?: string[] };
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

describe('docker-compose.yml', () => {
  const { mongo, agora } = compose.services;

  it('runs a current MongoDB image with a named volume and a healthcheck', () => {
    expect(mongo?.image).toMatch(/^mongo:(7|8)\.\d+/);
    const volume = mongo?.volumes?.[0]?.split(':')[0];
    expect(volume && Object.keys(compose.volumes)).toContain(volume);
    expect(mongo?.healthcheck?.test?.join(' ')).toMatch(/ping/);
  });

  it('builds the app and wires it to MongoDB, listening on all interfaces', () => {
    expect(agora?.build).toBe('.');
    expect(agora?.environment?.MONGODB_URI).toMatch(/^mongodb:\/\/mongo:27017\//);
    expect(agora?.environment?.HOST).toBe('0.0.0.0');
    expect(agora?.environment?.JWT_SECRET).toMatch(/\$\{JWT_SECRET/);
    expect(agora?.depends_on?.mongo?.condition).toBe('service_healthy');
    expect(agora?.ports).toContain(`${agora?.environment?.PORT}:${agora?.environment?.PORT}`);
    const volume = agora?.volumes?.[0]?.split(':');
    expect(Object.keys(compose.volumes)).toContain(volume?.[0]);
  });
});

describe('Dockerfile', () => {
  it('is multi-stage, installs production dependencies only, and runs as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/CMD \["node", "dist\/main\.js"\]/);
  });

  it('copies what the build needs and the start command runs', () => {
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src/main.ts']) expect(fs.existsSync(path.join(root, f))).toBe(true);
  });
});
