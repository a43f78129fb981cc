/** No Docker engine runs here, so the deployment files are checked for their wiring instead. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../../..');
type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
  ports?: string[];
  expose?: string[];
  configs?: { source: string; target: string }[];
};
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  configs: Record<string, { content?: string }>;
};
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

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
    expect((agora?.depends_on as Record<string, { condition?: string }>)?.mongo?.condition).toBe('service_healthy');
    expect(agora?.ports).toContain(`${agora?.environment?.PORT}:${agora?.environment?.PORT}`);
    const volume = agora?.volumes?.[0]?.split(':');
    expect(Object.keys(compose.volumes)).toContain(volume?.[0]);
  });
});

describe('docker-compose.yml for live updates and scale-out', () => {
  const { mongo } = compose.services;
  const scale = ['agora-1', 'agora-2'].map((name) => compose.services[name]!);

  it('runs MongoDB as a replica set that the compose file initiates itself (as production runs it)', () => {
    const setName = mongo?.command?.[mongo.command.indexOf('--replSet') + 1];
    expect(setName).toBeTruthy();
    const check = mongo?.healthcheck?.test?.join(' ') ?? '';
    expect(check).toMatch(
      new RegExp(`rs\\.initiate\\(\\{ _id: '${setName}', members: \\[\\{ _id: 0, host: 'mongo:27017' \\}\\] \\}\\)`),
    );
    expect(check).toMatch(/isWritablePrimary/);
    for (const svc of [compose.services.agora!, ...scale])
      expect(svc.environment?.MONGODB_URI).toMatch(new RegExp(`[?&]replicaSet=${setName}$`));
  });

  it('offers a "scale" profile: two instances on one database, files on GridFS, one JWT secret', () => {
    for (const svc of scale) {
      expect(svc.profiles).toEqual(['scale']);
      expect(svc.build).toBe('.');
      expect((svc.depends_on as Record<string, { condition?: string }>).mongo?.condition).toBe('service_healthy');
      expect(svc.environment).toMatchObject({ FILES_STORAGE: 'gridfs', HOST: '0.0.0.0', TRUST_PROXY: 'true' });
      expect(svc.environment?.JWT_SECRET).toMatch(/\$\{JWT_SECRET/);
      expect(svc.expose).toContain(svc.environment?.PORT);
      expect(svc.ports).toBeUndefined();
    }
    expect(scale[0]!.environment).toEqual(scale[1]!.environment);
  });

  it('puts a reverse proxy in front of both that passes WebSocket upgrades', () => {
    const proxy = compose.services.proxy!;
    expect(proxy.profiles).toEqual(['scale']);
    expect(proxy.depends_on).toEqual(['agora-1', 'agora-2']);
    const mount = proxy.configs?.[0];
    expect(mount?.target).toBe('/etc/nginx/conf.d/default.conf');
    // Compose turns `$$` into `$`: this is the file nginx reads.
    const conf = (compose.configs[mount!.source]?.content ?? '').replace(/\$\$/g, '$');
    const port = scale[0]!.environment?.PORT;
    expect(conf).toContain(`server agora-1:${port};`);
    expect(conf).toContain(`server agora-2:${port};`);
    expect(conf).toMatch(/proxy_http_version 1\.1;/);
    expect(conf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(conf).toMatch(/map \$http_upgrade \$connection_upgrade \{\s*default upgrade;/);
    expect(conf).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    // Idle subscriptions are kept open by the server's pings (LIVE_KEEPALIVE), well within this.
    expect(conf).toMatch(/proxy_read_timeout 1h;/);
    const listen = /listen (\d+);/.exec(conf)?.[1];
    expect(proxy.ports).toContain(`${listen}:${listen}`);
    // No single `$` left for compose to interpolate away.
    expect(compose.configs[mount!.source]?.content).not.toMatch(/(^|[^$])\$[a-z_{]/);
  });
});

describe('Dockerfile', () => {
  it('is multi-stage, installs production dependencies only, and runs as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    // The V8 flags of package.json's start:built (bench/README.md: full GCs under bursts of uploads).
    // Continuation lines joined, as Docker reads them.
    const cmd = /^CMD \["node", (.*), "dist\/main\.js"\]$/m.exec(dockerfile.replace(/\\\n\s*/g, ''))?.[1];
    const startBuilt = /^node (.*) dist\/main\.js$/.exec(pkg.scripts['start:built'])?.[1];
    expect(cmd?.split(', ').map((f) => JSON.parse(f))).toEqual(startBuilt?.split(' '));
    expect(startBuilt).toContain('--initial-old-space-size=128');
    // V8's gc function, for the idle trim (src/core/idle-trim.ts), which does nothing without it.
    expect(startBuilt).toContain('--expose-gc');
    // `npm start` builds, then runs exactly what `start:built` runs: the flags live in one command.
    expect(pkg.scripts.start).toBe(`node scripts/build.js && ${pkg.scripts['start:built']}`);
  });

  it('copies what the build needs and the start command runs', () => {
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src/main.ts'])
      expect(fs.existsSync(path.join(root, f))).toBe(true);
    // `npm run build` also runs every script it names, and scripts/build.js runs the sendfile
    // module's build (which reads native/).
    for (const script of [...(pkg.scripts.build.match(/scripts\/[\w.-]+\.js/g) ?? []), 'scripts/build-native.js']) {
      expect(fs.existsSync(path.join(root, script))).toBe(true);
      expect(dockerfile).toContain(`COPY ${script} ./${script}`);
    }
    expect(dockerfile).toMatch(/^COPY native \.\/native$/m);
  });
});
