/**
 * GraphiQL served entirely from node_modules (graphiql 3.8.3 UMD + React 18 UMD): it works with the
 * network unplugged and under a CSP without inline scripts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { exampleTabs } from './examples';
import { liveExampleTabs } from './live-examples';

const ASSETS: Record<string, { module: string; type: string }> = {
  'react.production.min.js': { module: 'react:umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': {
    module: 'react-dom:umd/react-dom.production.min.js',
    type: 'text/javascript; charset=utf-8',
  },
  'graphiql.min.js': { module: 'graphiql:graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { module: 'graphiql:graphiql.min.css', type: 'text/css; charset=utf-8' },
};

/** 'pkg:file' → the file inside the installed package (read past its "exports" map). */
function assetPath(spec: string): string {
  const [pkg, file] = spec.split(':');
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agora GraphiQL</title>
<link rel="stylesheet" href="/graphiql/assets/graphiql.min.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="/graphiql/assets/react.production.min.js"></script>
<script src="/graphiql/assets/react-dom.production.min.js"></script>
<script src="/graphiql/assets/graphiql.min.js"></script>
<script src="/graphiql/app.js"></script>
</body>
</html>
`;

function appScript(): string {
  return (
    `(function () {
  // Subscriptions go over WebSocket to the same path (graphql-transport-ws); the headers pane's
  // Authorization travels in connection_init's payload.
  var subscriptionUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
  var base = GraphiQL.createFetcher({ url: '/graphql', subscriptionUrl: subscriptionUrl, headers: { ` +
    `'Apollo-Require-Preflight': 'true' } });
  // The headers pane starts with an Authorization template; until a token is pasted in, send none,
  // so schema loading and anonymous queries work.
  function fetcher(params, opts) {
    var headers = Object.assign({}, (opts && opts.headers) || {});
    Object.keys(headers).forEach(function (name) {
      var value = String(headers[name] == null ? '' : headers[name]).trim();
      if (name.toLowerCase() === 'authorization' && (/^bearer$/i.test(value) || value === '' || ` +
    `value.indexOf('<') >= 0)) delete headers[name];
    });
    return base(params, Object.assign({}, opts, { headers: headers }));
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultTabs: ${JSON.stringify([...exampleTabs, ...liveExampleTabs])},
    defaultHeaders: '{\\n  "Authorization": "Bearer <paste the token from the Login tab here>"\\n}',
    headerEditorEnabled: true,
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers'
  }));
})();
`
  );
}

const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'self'";

export async function graphiqlRoutes(app: FastifyInstance): Promise<void> {
  const script = appScript();
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const [name, a] of Object.entries(ASSETS))
    files.set(name, { body: fs.readFileSync(assetPath(a.module)), type: a.type });

  app.get('/graphiql', async (_req, reply) => {
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-cache');
    return PAGE;
  });
  app.get('/graphiql/app.js', async (_req, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-cache');
    return script;
  });
  app.get<{ Params: { name: string } }>('/graphiql/assets/:name', async (req, reply) => {
    const file = files.get(req.params.name);
    if (!file) return reply.callNotFound();
    reply.header('content-type', file.type).header('cache-control', 'public, max-age=86400');
    return file.body;
  });
}
