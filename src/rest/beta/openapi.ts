/**
 * OpenAPI 3.0 description of /api/beta, written by hand from discussion-api-beta.md and
 * discussion-behaviour.md (served at GET /api/beta/openapi.json). The integration tests validate
 * every response they receive against it.
 */

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type, nullable: true, ...extra });
const timestamp = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$', description: 'ISO 8601 UTC with milliseconds' };
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
  author: nullable('string', { description: 'null when hidden (deleted, or removed and the viewer is neither its author nor an admin)' }),
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
const commentRequired = ['id', 'topic_id', 'author', 'rendered_html', 'created_at', 'edited_at', 'votes', 'is_removed', 'is_deleted', 'exemplary', 'voted', 'bookmarked'];

const limit = { name: 'limit', in: 'query', required: false, description: 'Integer 1..100 (default 50)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } };
const cursor = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } });
const bareCursors = [
  cursor('before', 'id36 of the first item of the current page; not together with after'),
  cursor('after', 'id36 of the last item of the previous page; not together with before'),
];
const authHeader401 = errors('Authorization header present but the token is invalid (InvalidTokenError)', {
  'WWW-Authenticate': { schema: { type: 'string' } },
});
const usernamePath = { name: 'username', in: 'path', required: true, description: 'Matched case-insensitively', schema: { type: 'string' } };
const userErrors = {
  '400': errors('Parameter validation failed (every problem listed)'),
  '401': authHeader401,
  '403': errors('The user is banned, deleted their account, or shows their history to logged-in users only'),
  '404': errors('User not found'),
  default: errors('Other errors (405, 500, 503)'),
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
          'id', 'title', 'text_html', 'url', 'comments_url', 'group', 'content_metadata', 'created_at', 'edited_at', 'posted_by_user',
          'vote_count', 'comment_count', 'new_comment_count', 'voted', 'bookmarked', 'ignored', 'official', 'tags', 'last_visit_time',
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
      User: { type: 'object', additionalProperties: false, required: ['username'], properties: { username: { type: 'string' } } },
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
              schema: { type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string' } } },
            },
          },
        },
        responses: {
          '200': ok('A token', { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string' } } }),
          '400': errors('The body is not a JSON object with string username and password'),
          '401': errors('Invalid token in the Authorization header, wrong credentials, or a banned account'),
          '413': errors('The body is too large'),
          '429': errors('Too many login attempts from this address or for this username', { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } }),
          default: errors('Other errors (405, 500, 503)'),
        },
      },
    },
    '/whoami': {
      get: {
        summary: 'The username of the token\'s user',
        responses: {
          '200': ok('The username as stored', { type: 'object', additionalProperties: false, required: ['msg'], properties: { msg: { type: 'string' } } }),
          '401': errors('No token (AuthenticationError) or an invalid token (InvalidTokenError)', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
          default: errors('Other errors (405, 500, 503)'),
        },
      },
    },
    '/topics': {
      get: {
        summary: 'List topics of every group',
        parameters: [
          limit,
          ...bareCursors,
          { name: 'period', in: 'query', required: false, description: '`all` or `<n>h` / `<n>d` (at least one hour)', schema: { type: 'string', default: 'all' } },
          { name: 'tag', in: 'query', required: false, description: 'A label path; matches tags containing it as a run of whole labels', schema: { type: 'string' } },
          { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['activity', 'votes', 'comments', 'new', 'all_activity'], default: 'activity' } },
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
          default: errors('Other errors (405, 500, 503)'),
        },
      },
    },
    '/topic/{topic_id36}': {
      get: {
        summary: 'One topic with its sorted comment tree',
        parameters: [
          { name: 'topic_id36', in: 'path', required: true, schema: { type: 'string', pattern: '^[1-9a-zA-Z][0-9a-zA-Z]*$' } },
          { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['votes', 'newest', 'posted', 'relevance'], default: 'relevance' } },
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
          default: errors('Other errors (405, 500, 503)'),
        },
      },
    },
    '/user/{username}': {
      get: {
        summary: 'A user\'s history: topics and comments, newest first',
        parameters: [
          usernamePath,
          limit,
          cursor('before', '`t-<id36>` or `c-<id36>` of the first item of the current page'),
          cursor('after', '`t-<id36>` or `c-<id36>` of the last item of the previous page'),
        ],
        responses: {
          '200': ok('A page of the history', {
            type: 'object',
            additionalProperties: false,
            required: ['user', 'history', 'pagination'],
            properties: { user: ref('User'), history: { type: 'array', items: { oneOf: [ref('Topic'), ref('Comment')] } }, pagination: ref('Pagination') },
          }),
          ...userErrors,
        },
      },
    },
    '/user/{username}/topics': {
      get: {
        summary: 'A user\'s topics, newest first',
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
      },
    },
    '/user/{username}/comments': {
      get: {
        summary: 'A user\'s comments, newest first',
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
      },
    },
  },
} as const;
