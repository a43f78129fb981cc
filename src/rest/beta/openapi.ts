/**
 * OpenAPI 3.0 description of /api/beta, written by hand from docs/discussion-api.md
 * (served at GET /api/beta/openapi.json). The integration tests validate
 * every response they receive against it. Parameter schemas state the grammar the server accepts
 * (patterns from 1.2, 5.1-5.3, 7.2), so a client or a property-based tester (bench/schemathesis.sh)
 * can tell valid values from invalid ones; only "before and after not both" is beyond OpenAPI 3.0.
 */

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type, nullable: true, ...extra });
const timestamp = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  description: 'ISO 8601 UTC with milliseconds',
};
const nullableTimestamp = { ...timestamp, nullable: true };
const id36 = { type: 'string', pattern: '^[1-9a-z][0-9a-z]*$' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errors = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('ErrorList') } },
});
const ok = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });

const commentFields = {
  id: id36,
  topic_id: id36,
  author: nullable('string', {
    description: 'null when hidden (deleted, or removed and the viewer is neither its author nor an admin)',
  }),
  rendered_html: nullable('string'),
  created_at: timestamp,
  edited_at: nullableTimestamp,
  votes: { type: 'integer', minimum: 0 },
  is_removed: { type: 'boolean' },
  is_deleted: { type: 'boolean' },
  exemplary: nullable('boolean'),
  collapsed: nullable('boolean'),
  collapsed_individual: nullable('boolean'),
  is_op: nullable('boolean'),
  is_me: nullable('boolean', { description: 'Viewer-specific: null for anonymous viewers' }),
  is_new: nullable('boolean', { description: 'Viewer-specific: null for anonymous viewers' }),
  voted: nullable('boolean', { description: 'Viewer-specific' }),
  bookmarked: nullable('boolean', { description: 'Viewer-specific' }),
  depth: { type: 'integer', minimum: 0 },
};
const commentRequired = [
  'id',
  'topic_id',
  'author',
  'rendered_html',
  'created_at',
  'edited_at',
  'votes',
  'is_removed',
  'is_deleted',
  'exemplary',
  'voted',
  'bookmarked',
];

const limit = {
  name: 'limit',
  in: 'query',
  required: false,
  description: 'Integer 1..100 (default 50)',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
};
/** An input id36 (1.2): case-insensitive, no leading zero. */
const ID36_INPUT = '^[1-9a-zA-Z][0-9a-zA-Z]*$';
const cursor = (name: string, description: string, pattern: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', pattern },
});
const bareCursors = [
  cursor('before', 'id36 of the first item of the current page; not together with after', ID36_INPUT),
  cursor('after', 'id36 of the last item of the previous page; not together with before', ID36_INPUT),
];
/** 405 on every listed path for a method it does not answer (1.1). */
const methodNotAllowed = errors('The path exists but does not answer this method; `Allow` lists those it answers', {
  Allow: { schema: { type: 'string' }, description: '`GET, HEAD`, or `POST` for /login' },
});
const authHeader401 = errors('Authorization header present but the token is invalid (InvalidTokenError)', {
  'WWW-Authenticate': { schema: { type: 'string' } },
});
const usernamePath = {
  name: 'username',
  in: 'path',
  required: true,
  description: 'Matched case-insensitively',
  schema: { type: 'string' },
};
const userErrors = {
  '400': errors('Parameter validation failed (every problem listed)'),
  '401': authHeader401,
  '403': errors('The user is banned, deleted their account, or shows their history to logged-in users only'),
  '404': errors('User not found'),
  '405': methodNotAllowed,
  default: errors('Other errors (500, 503)'),
};

/**
 * The HEAD twin of a GET operation (1.1): same parameters, status and headers, no body (so its
 * responses describe no content).
 */
function headOf(get: {
  summary: string;
  parameters?: readonly unknown[];
  security?: unknown;
  responses: Record<string, { description: string; headers?: unknown }>;
}) {
  const responses: Record<string, { description: string; headers?: unknown }> = {};
  for (const [status, r] of Object.entries(get.responses))
    responses[status] = { description: r.description, ...(r.headers ? { headers: r.headers } : {}) };
  return { ...get, summary: `${get.summary} (headers only)`, responses };
}

const whoami = {
  summary: "The username of the token's user",
  security: [{ bearer: [] }],
  responses: {
    '200': ok('The username as stored', {
      type: 'object',
      additionalProperties: false,
      required: ['msg'],
      properties: { msg: { type: 'string' } },
    }),
    '401': errors('No token (AuthenticationError) or an invalid token (InvalidTokenError)', {
      'WWW-Authenticate': { schema: { type: 'string' } },
    }),
    '405': methodNotAllowed,
    default: errors('Other errors (500, 503)'),
  },
};

const topics = {
  summary: 'List topics of every group',
  parameters: [
    limit,
    ...bareCursors,
    {
      name: 'period',
      in: 'query',
      required: false,
      description: '`all`, or `<n>h` / `<n>d` (case-insensitive unit) of at least one hour',
      schema: { type: 'string', pattern: '^(all|0*[1-9][0-9]*[hHdD])$', default: 'all' },
    },
    {
      name: 'tag',
      in: 'query',
      required: false,
      description:
        'A label path (letters, digits, `_` or spaces, joined by single dots); matches tags containing ' +
        'it as a run of whole labels',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_ ]+(\\.[A-Za-z0-9_ ]+)*$' },
    },
    {
      name: 'order',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['activity', 'votes', 'comments', 'new', 'all_activity'], default: 'activity' },
    },
  ],
  responses: {
    '200': ok('A page of topics', {
      type: 'object',
      additionalProperties: false,
      required: ['topics', 'pagination'],
      properties: { topics: { type: 'array', items: ref('Topic') }, pagination: ref('Pagination') },
    }),
    '400': errors('Parameter validation failed (every problem listed)'),
    '401': authHeader401,
    '405': methodNotAllowed,
    default: errors('Other errors (500, 503)'),
  },
};

const topic = {
  summary: 'One topic with its sorted comment tree',
  parameters: [
    { name: 'topic_id36', in: 'path', required: true, schema: { type: 'string', pattern: ID36_INPUT } },
    {
      name: 'order',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['votes', 'newest', 'posted', 'relevance'], default: 'relevance' },
    },
  ],
  responses: {
    '200': ok('The topic and its comments', {
      type: 'object',
      additionalProperties: false,
      required: ['topic', 'comments'],
      properties: { topic: ref('Topic'), comments: { type: 'array', items: ref('Comment') } },
    }),
    '400': errors('Parameter validation failed (every problem listed)'),
    '401': authHeader401,
    '404': errors('Topic not found'),
    '405': methodNotAllowed,
    default: errors('Other errors (500, 503)'),
  },
};

const history = {
  summary: "A user's history: topics and comments, newest first",
  parameters: [
    usernamePath,
    limit,
    cursor(
      'before',
      '`t-<id36>` or `c-<id36>` of the first item of the current page; not together with after',
      '^[tc]-[1-9a-zA-Z][0-9a-zA-Z]*$',
    ),
    cursor(
      'after',
      '`t-<id36>` or `c-<id36>` of the last item of the previous page; not together with before',
      '^[tc]-[1-9a-zA-Z][0-9a-zA-Z]*$',
    ),
  ],
  responses: {
    '200': ok('A page of the history', {
      type: 'object',
      additionalProperties: false,
      required: ['user', 'history', 'pagination'],
      properties: {
        user: ref('User'),
        history: { type: 'array', items: { oneOf: [ref('Topic'), ref('Comment')] } },
        pagination: ref('Pagination'),
      },
    }),
    ...userErrors,
  },
};

const userTopics = {
  summary: "A user's topics, newest first",
  parameters: [usernamePath, limit, ...bareCursors],
  responses: {
    '200': ok('A page of topics', {
      type: 'object',
      additionalProperties: false,
      required: ['topics', 'pagination'],
      properties: { topics: { type: 'array', items: ref('Topic') }, pagination: ref('Pagination') },
    }),
    ...userErrors,
  },
};

const userComments = {
  summary: "A user's comments, newest first",
  parameters: [usernamePath, limit, ...bareCursors],
  responses: {
    '200': ok('A page of comments', {
      type: 'object',
      additionalProperties: false,
      required: ['comments', 'pagination'],
      properties: { comments: { type: 'array', items: ref('Comment') }, pagination: ref('Pagination') },
    }),
    ...userErrors,
  },
};

export const openApiDocument = {
  openapi: '3.0.3',
  info: {
    title: 'Agora discussion API (beta)',
    version: 'beta',
    description: 'Compatibility layer for legacy clients. Unstable: future updates will include breaking changes.',
  },
  servers: [{ url: '/api/beta' }],
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    schemas: {
      Error: {
        type: 'object',
        required: ['message'],
        additionalProperties: false,
        properties: { message: { type: 'string' }, field: { type: 'string' }, exception: { type: 'string' } },
      },
      ErrorList: { type: 'array', minItems: 1, items: ref('Error') },
      Topic: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'title',
          'text_html',
          'url',
          'comments_url',
          'group',
          'content_metadata',
          'created_at',
          'edited_at',
          'posted_by_user',
          'vote_count',
          'comment_count',
          'new_comment_count',
          'voted',
          'bookmarked',
          'ignored',
          'official',
          'tags',
          'last_visit_time',
        ],
        properties: {
          id: id36,
          title: { type: 'string' },
          text_html: nullable('string'),
          url: nullable('string'),
          comments_url: { type: 'string', pattern: '^https?://' },
          source_site_name: nullable('string'),
          source_site_icon: nullable('string'),
          group: { type: 'string', pattern: '^~' },
          content_metadata: { type: 'array', items: { type: 'string' } },
          created_at: timestamp,
          edited_at: nullableTimestamp,
          posted_by_user: { type: 'string' },
          vote_count: { type: 'integer', minimum: 0 },
          comment_count: { type: 'integer', minimum: 0 },
          new_comment_count: nullable('integer', { minimum: 0, description: 'Viewer-specific' }),
          voted: nullable('boolean', { description: 'Viewer-specific' }),
          bookmarked: nullable('boolean', { description: 'Viewer-specific' }),
          ignored: nullable('boolean', { description: 'Viewer-specific' }),
          official: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          last_visit_time: { ...nullableTimestamp, description: 'Viewer-specific' },
        },
      },
      Comment: {
        type: 'object',
        additionalProperties: false,
        required: commentRequired,
        properties: { ...commentFields, children: { type: 'array', items: ref('Comment') } },
      },
      User: {
        type: 'object',
        additionalProperties: false,
        required: ['username'],
        properties: { username: { type: 'string' } },
      },
      Pagination: {
        type: 'object',
        additionalProperties: false,
        required: ['num_items', 'next_link', 'prev_link'],
        properties: {
          num_items: { type: 'integer', minimum: 0 },
          next_link: nullable('string', { pattern: '^https?://' }),
          prev_link: nullable('string', { pattern: '^https?://' }),
        },
      },
    },
  },
  security: [{}, { bearer: [] }],
  paths: {
    '/login': {
      post: {
        summary: 'Exchange a username and password for a bearer token',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['username', 'password'],
                properties: { username: { type: 'string' }, password: { type: 'string' } },
              },
            },
          },
        },
        responses: {
          '200': ok('A token', {
            type: 'object',
            additionalProperties: false,
            required: ['token'],
            properties: { token: { type: 'string' } },
          }),
          '400': errors('The body is not a JSON object with string username and password'),
          '401': errors('Invalid token in the Authorization header, wrong credentials, or a banned account'),
          '413': errors('The body is too large'),
          '429': errors('Too many login attempts from this address or for this username', {
            'Retry-After': { schema: { type: 'integer', minimum: 1 } },
          }),
          '405': methodNotAllowed,
          default: errors('Other errors (500, 503)'),
        },
      },
    },
    '/whoami': { get: whoami, head: headOf(whoami) },
    '/topics': { get: topics, head: headOf(topics) },
    '/topic/{topic_id36}': { get: topic, head: headOf(topic) },
    '/user/{username}': { get: history, head: headOf(history) },
    '/user/{username}/topics': { get: userTopics, head: headOf(userTopics) },
    '/user/{username}/comments': { get: userComments, head: headOf(userComments) },
  },
} as const;
