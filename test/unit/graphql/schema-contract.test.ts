/**
 * The schema contract of issue 4: type, field and argument names, types, nullability and defaults
 * are fixed (clients rely on them), and everything carries a description.
 */
import {
  GraphQLArgument,
  GraphQLEnumType,
  GraphQLField,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  isIntrospectionType,
  isSpecifiedScalarType,
  print,
  astFromValue,
} from 'graphql';
import { buildGraphQLSchema } from '../../../src/graphql/schema';

let schema: GraphQLSchema;
beforeAll(() => {
  schema = buildGraphQLSchema();
});

function object(name: string): GraphQLObjectType {
  const t = schema.getType(name);
  if (!(t instanceof GraphQLObjectType)) throw new Error(`${name} is not an object type`);
  return t;
}

function field(type: string, name: string): GraphQLField<unknown, unknown> {
  const f = object(type).getFields()[name];
  if (!f) throw new Error(`${type}.${name} is missing`);
  return f;
}

/** `name: Type = default` of each argument, as SDL writes it. */
function signature(type: string, name: string): string {
  const f = field(type, name);
  const args = f.args.map((a: GraphQLArgument) => {
    const d = a.defaultValue === undefined ? '' : ` = ${print(astFromValue(a.defaultValue, a.type)!)}`;
    return `${a.name}: ${String(a.type)}${d}`;
  });
  return `${name}${args.length ? `(${args.join(', ')})` : ''}: ${String(f.type)}`;
}

const PAGE = 'first: Int, after: String, last: Int, before: String';

describe('Query', () => {
  it.each([
    ['viewer', 'viewer: User'],
    ['topics', `topics(${PAGE}, order: TopicOrder = ACTIVITY, period: String = "all", tag: String, group: String): TopicConnection!`],
    ['topic', 'topic(id: ID!): Topic'],
    ['user', 'user(username: String!): User'],
    ['groups', 'groups: [Group!]!'],
    ['group', 'group(path: String!): Group'],
  ])('%s', (name, sig) => {
    expect(signature('Query', name)).toBe(sig);
  });
});

describe('Topic', () => {
  it.each([
    ['id', 'ID!'],
    ['title', 'String!'],
    ['markdown', 'String'],
    ['textHtml', 'String'],
    ['url', 'String'],
    ['commentsUrl', 'String!'],
    ['sourceSiteName', 'String'],
    ['sourceSiteIcon', 'String'],
    ['group', 'Group!'],
    ['contentMetadata', '[String!]!'],
    ['createdAt', 'DateTime!'],
    ['editedAt', 'DateTime'],
    ['author', 'User'],
    ['voteCount', 'Int!'],
    ['commentCount', 'Int!'],
    ['newCommentCount', 'Int'],
    ['voted', 'Boolean'],
    ['bookmarked', 'Boolean'],
    ['ignored', 'Boolean'],
    ['official', 'Boolean!'],
    ['locked', 'Boolean!'],
    ['tags', '[String!]!'],
    ['lastVisitTime', 'DateTime'],
    ['isDeleted', 'Boolean!'],
    ['isRemoved', 'Boolean!'],
  ])('%s: %s', (name, type) => {
    expect(String(field('Topic', name).type)).toBe(type);
  });

  it('comments and commentsFlat take an order defaulting to RELEVANCE', () => {
    expect(signature('Topic', 'comments')).toBe('comments(order: CommentOrder = RELEVANCE): [Comment!]!');
    expect(signature('Topic', 'commentsFlat')).toBe('commentsFlat(order: CommentOrder = RELEVANCE): [Comment!]!');
  });
});

describe('Comment', () => {
  it.each([
    ['id', 'ID!'],
    ['topic', 'Topic!'],
    ['parentId', 'ID'],
    ['parent', 'Comment'],
    ['author', 'User'],
    ['markdown', 'String'],
    ['renderedHtml', 'String'],
    ['createdAt', 'DateTime!'],
    ['editedAt', 'DateTime'],
    ['votes', 'Int!'],
    ['isRemoved', 'Boolean!'],
    ['isDeleted', 'Boolean!'],
    ['exemplary', 'Boolean'],
    ['collapsed', 'Boolean!'],
    ['collapsedIndividual', 'Boolean!'],
    ['isOp', 'Boolean'],
    ['isMe', 'Boolean'],
    ['isNew', 'Boolean'],
    ['voted', 'Boolean'],
    ['bookmarked', 'Boolean'],
    ['depth', 'Int!'],
    ['children', '[Comment!]!'],
  ])('%s: %s', (name, type) => {
    expect(String(field('Comment', name).type)).toBe(type);
  });
});

describe('User and the feeds', () => {
  it('has username, joinedAt, isAdmin and three paginated feeds', () => {
    expect(String(field('User', 'username').type)).toBe('String!');
    expect(String(field('User', 'joinedAt').type)).toBe('DateTime!');
    expect(String(field('User', 'isAdmin').type)).toBe('Boolean!');
    expect(signature('User', 'history')).toBe(`history(${PAGE}): HistoryConnection!`);
    expect(signature('User', 'topics')).toBe(`topics(${PAGE}): TopicConnection!`);
    expect(signature('User', 'comments')).toBe(`comments(${PAGE}): CommentConnection!`);
  });

  it('HistoryItem is the union of Topic and Comment', () => {
    const u = schema.getType('HistoryItem');
    expect(u).toBeInstanceOf(GraphQLUnionType);
    expect((u as GraphQLUnionType).getTypes().map((t) => t.name).sort()).toEqual(['Comment', 'Topic']);
  });

  it.each([
    ['TopicConnection', 'TopicEdge', 'Topic!'],
    ['CommentConnection', 'CommentEdge', 'Comment!'],
    ['HistoryConnection', 'HistoryEdge', 'HistoryItem!'],
  ])('%s is a Relay connection', (conn, edge, node) => {
    expect(String(field(conn, 'edges').type)).toBe(`[${edge}!]!`);
    expect(String(field(conn, 'pageInfo').type)).toBe('PageInfo!');
    expect(String(field(edge, 'cursor').type)).toBe('String!');
    expect(String(field(edge, 'node').type)).toBe(node);
  });

  it('PageInfo has the Relay fields', () => {
    expect(String(field('PageInfo', 'hasNextPage').type)).toBe('Boolean!');
    expect(String(field('PageInfo', 'hasPreviousPage').type)).toBe('Boolean!');
    expect(String(field('PageInfo', 'startCursor').type)).toBe('String');
    expect(String(field('PageInfo', 'endCursor').type)).toBe('String');
  });
});

describe('enums', () => {
  it.each([
    ['TopicOrder', ['ACTIVITY', 'VOTES', 'COMMENTS', 'NEW', 'ALL_ACTIVITY']],
    ['CommentOrder', ['VOTES', 'NEWEST', 'POSTED', 'RELEVANCE']],
    ['CommentLabel', ['EXEMPLARY', 'NOISE', 'OFFTOPIC', 'JOKE', 'MALICE']],
  ])('%s', (name, values) => {
    const e = schema.getType(name) as GraphQLEnumType;
    expect(e.getValues().map((v) => v.name).sort()).toEqual([...values].sort());
  });
});

describe('Mutation', () => {
  it.each([
    ['register', 'register(username: String!, password: String!): AuthPayload!'],
    ['login', 'login(username: String!, password: String!): AuthPayload!'],
    ['logoutEverywhere', 'logoutEverywhere: Boolean!'],
    ['changePassword', 'changePassword(currentPassword: String!, newPassword: String!): AuthPayload!'],
    ['postTopic', 'postTopic(input: PostTopicInput!): Topic!'],
    ['editTopic', 'editTopic(id: ID!, input: EditTopicInput!): Topic!'],
    ['deleteTopic', 'deleteTopic(id: ID!): Topic!'],
    ['postComment', 'postComment(topicId: ID!, parentId: ID, markdown: String!): Comment!'],
    ['editComment', 'editComment(id: ID!, markdown: String!): Comment!'],
    ['deleteComment', 'deleteComment(id: ID!): Comment!'],
    ['voteTopic', 'voteTopic(id: ID!, vote: Boolean = true): Topic!'],
    ['voteComment', 'voteComment(id: ID!, vote: Boolean = true): Comment!'],
    ['bookmarkTopic', 'bookmarkTopic(id: ID!, bookmark: Boolean = true): Topic!'],
    ['bookmarkComment', 'bookmarkComment(id: ID!, bookmark: Boolean = true): Comment!'],
    ['ignoreTopic', 'ignoreTopic(id: ID!, ignore: Boolean = true): Topic!'],
    ['labelComment', 'labelComment(id: ID!, label: CommentLabel!, reason: String, add: Boolean = true): Comment!'],
    ['updateSettings', 'updateSettings(input: UpdateSettingsInput!): User!'],
    ['createGroup', 'createGroup(path: String!, description: String): Group!'],
    ['removeTopic', 'removeTopic(id: ID!, removed: Boolean = true): Topic!'],
    ['removeComment', 'removeComment(id: ID!, removed: Boolean = true): Comment!'],
    ['lockTopic', 'lockTopic(id: ID!, locked: Boolean = true): Topic!'],
    ['setTopicOfficial', 'setTopicOfficial(id: ID!, official: Boolean = true): Topic!'],
    ['editTopicTags', 'editTopicTags(id: ID!, tags: [String!]!): Topic!'],
    ['banUser', 'banUser(username: String!, banned: Boolean = true): User!'],
  ])('%s', (name, sig) => {
    expect(signature('Mutation', name)).toBe(sig);
  });

  it('AuthPayload holds the token and the user', () => {
    expect(String(field('AuthPayload', 'token').type)).toBe('String!');
    expect(String(field('AuthPayload', 'user').type)).toBe('User!');
  });

  it('PostTopicInput has group, title, markdown, link and tags', () => {
    const fields = (schema.getType('PostTopicInput') as GraphQLInputObjectType).getFields();
    expect(Object.fromEntries(Object.values(fields).map((f) => [f.name, String(f.type)]))).toEqual({
      group: 'String!',
      title: 'String!',
      markdown: 'String',
      link: 'String',
      tags: '[String!]',
    });
  });
});

describe('documentation', () => {
  it('every type, field, argument, enum value and input field has a description', () => {
    const missing: string[] = [];
    const need = (what: string, d: string | null | undefined) => {
      if (!d || d.trim() === '') missing.push(what);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      const root = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].includes(type as GraphQLObjectType);
      if (!root) need(type.name, type.description);
      if (type instanceof GraphQLObjectType || type instanceof GraphQLInterfaceType) {
        for (const f of Object.values(type.getFields())) {
          need(`${type.name}.${f.name}`, f.description);
          for (const a of f.args) need(`${type.name}.${f.name}(${a.name})`, a.description);
        }
      } else if (type instanceof GraphQLInputObjectType) {
        for (const f of Object.values(type.getFields())) need(`${type.name}.${f.name}`, f.description);
      } else if (type instanceof GraphQLEnumType) {
        for (const v of type.getValues()) need(`${type.name}.${v.name}`, v.description);
      }
    }
    expect(missing).toEqual([]);
  });
});
