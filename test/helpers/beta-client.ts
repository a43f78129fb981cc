/**
 * A fetch wrapper for /api/beta that validates EVERY response against the hand-written OpenAPI
 * document (src/rest/beta/openapi.ts) by path, method and status, and checks the content type.
 */
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/rest/beta/openapi';

export interface BetaResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  body?: string;
}

const COMPONENTS = '#/components/schemas/';
const rewrite = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).split(`"${COMPONENTS}`).join('"beta-components#/definitions/'));

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'beta-components', definitions: rewrite(openApiDocument.components.schemas) as object });

type Operation = { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> };
const paths = openApiDocument.paths as unknown as Record<string, Record<string, Operation>>;
const templates = Object.keys(paths).map((p) => ({
  template: p,
  regex: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
const validators = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: unknown): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(rewrite(schema) as object);
    validators.set(key, v);
  }
  return v;
}

/** Throws when `body` is not what the OpenAPI document promises for this path, method and status. */
export function validateAgainstOpenApi(method: string, path: string, status: number, body: unknown): void {
  const bare = path.split('?')[0]!;
  const t = templates.find((x) => x.regex.test(bare));
  const op = t ? paths[t.template]![method.toLowerCase()] : undefined;
  let key: string;
  let schema: unknown;
  if (!op) {
    if (status !== 404 && status !== 405)
      throw new Error(`${method} ${path}: undocumented operation answered ${status}`);
    key = 'ErrorList';
    schema = { $ref: `${COMPONENTS}ErrorList` };
  } else {
    const response = op.responses[String(status)] ?? op.responses.default;
    if (!response) throw new Error(`${method} ${path}: status ${status} is not documented`);
    key = `${t!.template} ${method} ${response === op.responses.default ? 'default' : status}`;
    schema = response.content!['application/json'].schema;
  }
  const validate = validatorFor(key, schema);
  const check = (v: ValidateFunction, value: unknown) => {
    if (!v(value)) {
      throw new Error(
        `${method} ${path} → ${status}: response does not match the OpenAPI document:\n` +
          `${ajv.errorsText(v.errors, { separator: '\n' })}\n${JSON.stringify(value).slice(0, 2000)}`,
      );
    }
  };
  if (
    t?.template === '/topic/{topic_id36}' &&
    status === 200 &&
    body &&
    typeof body === 'object' &&
    Array.isArray((body as { comments?: unknown }).comments)
  ) {
    // Ajv validates recursively and would overflow on very deep reply chains: check the envelope,
    // then every comment node on its own (children emptied), walking the tree without recursion.
    const { comments } = body as { comments: { children?: unknown[] }[] };
    check(validate, { ...(body as object), comments: [] });
    const node = validatorFor('Comment', { $ref: `${COMPONENTS}Comment` });
    const stack = [...comments];
    while (stack.length > 0) {
      const c = stack.pop()!;
      check(node, { ...c, children: [] });
      if (!Array.isArray(c.children)) throw new Error(`${method} ${path}: a comment of the tree has no children array`);
      stack.push(...(c.children as { children?: unknown[] }[]));
    }
    return;
  }
  check(validate, body);
}

export class BetaClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<BetaResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${this.baseUrl}/api/beta${path}`, { method, headers, body: opts.body });
    const text = await res.text();
    const contentType = res.headers.get('content-type');
    if (contentType !== 'application/json; charset=utf-8')
      throw new Error(`${method} ${path}: content-type ${contentType}`);
    if (method === 'HEAD') {
      if (text !== '') throw new Error(`HEAD ${path} returned a body`);
      return { status: res.status, headers: res.headers, body: undefined as T, text };
    }
    let body: T;
    try {
      body = JSON.parse(text) as T;
    } catch {
      throw new Error(`${method} ${path} → ${res.status}: body is not JSON: ${text.slice(0, 200)}`);
    }
    validateAgainstOpenApi(method, path, res.status, body);
    return { status: res.status, headers: res.headers, body, text };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }

  head(path: string, opts?: RequestOptions) {
    return this.request('HEAD', path, opts);
  }

  post<T = any>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('POST', path, {
      ...opts,
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** Follows an absolute link from a pagination object (same server). */
  follow<T = any>(link: string, opts?: RequestOptions) {
    const u = new URL(link);
    return this.get<T>(`${u.pathname.replace(/^\/api\/beta/, '')}${u.search}`, opts);
  }
}
