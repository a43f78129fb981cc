/**
 * The schema contract (issue 4, v2 of issue 14): type, field and argument names, types, nullability
 * and defaults are fixed (clients rely on them), every object with identity implements Node, and
 * everything carries a description.
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
    [
      'topics',
      `topics(${PAGE}, order: TopicOrder! = ACTIVITY, period: String! = "all", tag: String, group: ` +
        `String): TopicConnection!`,
    ],
    ['topic', 'topic(id: ID!): Topic'],
    ['user', 'user(username: String!): User'],
    ['groups', 'groups: [Group!]!'],
    ['group', 'group(path: String!): Group'],
    ['node', 'node(id: ID!): Node'],
    ['nodes', 'nodes(ids: [ID!]!): [Node]!'],
  ])('%s', (name, sig) => {
    expect(signature('Query', name)).toBe(sig);
  });
});

describe('Global Object Identification', () => {
  it('Node is an interface with id: ID!, implemented by every type with identity', () => {
    const node = schema.getType('Node');
    expect(node).toBeInstanceOf(GraphQLInterfaceType);
    expect(String((node as GraphQLInterfaceType).getFields().id!.type)).toBe('ID!');
    const implementing = Object.values(schema.getTypeMap())
      .filter(
        (t): t is GraphQLObjectType =>
          t instanceof GraphQLObjectType && t.getInterfaces().some((i) => i.name === 'Node'),
      )
      .map((t) => t.name)
      .sort();
    expect(implementing).toEqual(['Comment', 'FileInfo', 'Group', 'Topic', 'User']);
  });

  it('no other object type has an id field (a normalised cache would key it)', () => {
    const withId = Object.values(schema.getTypeMap())
      .filter(
        (t): t is GraphQLObjectType =>
          t instanceof GraphQLObjectType && !t.name.startsWith('__') && 'id' in t.getFields(),
      )
      .filter((t) => !t.getInterfaces().some((i) => i.name === 'Node'))
      .map((t) => t.name);
    expect(withId).toEqual([]);
  });

  it('every argument naming a topic or a comment is an ID that says it takes the global id or the id36', () => {
    const named: string[] = [];
    for (const type of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const f of Object.values(type.getFields())) {
        for (const a of f.args) {
          if (!/^(id|topicId|parentId)$/.test(a.name) || f.name === 'node') continue;
          named.push(`${f.name}(${a.name})`);
          expect([f.name, a.name, String(a.type).replace('!', '')]).toEqual([f.name, a.name, 'ID']);
          expect(a.description).toMatch(/global `id`.*`id36`/);
        }
      }
    }
    expect(named.length).toBeGreaterThanOrEqual(19);
  });
});

describe('Topic', () => {
  it.each([
    ['id', 'ID!'],
    ['id36', 'String!'],
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
    ['viewerHasVoted', 'Boolean'],
    ['viewerHasBookmarked', 'Boolean'],
    ['viewerHasIgnored', 'Boolean'],
    ['isOfficial', 'Boolean!'],
    ['isLocked', 'Boolean!'],
    ['tags', '[String!]!'],
    ['lastVisitedAt', 'DateTime'],
    ['isDeleted', 'Boolean!'],
    ['isRemoved', 'Boolean!'],
  ])('%s: %s', (name, type) => {
    expect(String(field('Topic', name).type)).toBe(type);
  });

  it("threads: a Relay connection whose order has no default (null: the viewer's preference, described)", () => {
    expect(signature('Topic', 'threads')).toBe(`threads(${PAGE}, order: CommentOrder): CommentThreadConnection!`);
    const order = field('Topic', 'threads').args.find((a) => a.name === 'order')!;
    expect(order.description).toMatch(/Null or omitted: the logged-in viewer's preferred order/);
  });
});

describe('Comment and CommentThread', () => {
  it.each([
    ['id', 'ID!'],
    ['id36', 'String!'],
    // Null when the viewer may not see the topic: a history lists comments on hidden topics too.
    ['topic', 'Topic'],
    ['parent', 'Comment'],
    ['author', 'User'],
    ['markdown', 'String'],
    ['textHtml', 'String'],
    ['createdAt', 'DateTime!'],
    ['editedAt', 'DateTime'],
    ['voteCount', 'Int!'],
    ['isRemoved', 'Boolean!'],
    ['isDeleted', 'Boolean!'],
    ['isExemplary', 'Boolean'],
    ['isOp', 'Boolean'],
    ['viewerIsAuthor', 'Boolean'],
    ['viewerHasVoted', 'Boolean'],
    ['viewerHasBookmarked', 'Boolean'],
  ])('Comment.%s: %s', (name, type) => {
    expect(String(field('Comment', name).type)).toBe(type);
  });

  it('Comment has no field that depends on a place in a tree', () => {
    for (const name of ['depth', 'children', 'replies', 'collapsed', 'isCollapsed', 'isNew', 'collapsedIndividual']) {
      expect(object('Comment').getFields()[name]).toBeUndefined();
    }
  });

  it.each([
    ['comment', 'Comment!'],
    ['depth', 'Int!'],
    ['isCollapsed', 'Boolean!'],
    ['isCollapsedIndividually', 'Boolean!'],
    ['isNew', 'Boolean'],
    ['replies', '[CommentThread!]!'],
    ['descendants', '[CommentThread!]!'],
  ])('CommentThread.%s: %s', (name, type) => {
    expect(String(field('CommentThread', name).type)).toBe(type);
  });
});

describe('User and the feeds', () => {
  it('has username, joinedAt, isAdmin and three paginated feeds', () => {
    expect(String(field('User', 'id').type)).toBe('ID!');
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
    expect(
      (u as GraphQLUnionType)
        .getTypes()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['Comment', 'Topic']);
  });

  it.each([
    ['TopicConnection', 'TopicEdge', 'Topic!'],
    ['CommentConnection', 'CommentEdge', 'Comment!'],
    ['HistoryConnection', 'HistoryEdge', 'HistoryItem!'],
    ['CommentThreadConnection', 'CommentThreadEdge', 'CommentThread!'],
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
    expect(
      e
        .getValues()
        .map((v) => v.name)
        .sort(),
    ).toEqual([...values].sort());
  });
});

describe('Mutation', () => {
  it.each([
    ['register', 'register(username: String!, password: String!): AuthPayload'],
    ['login', 'login(username: String!, password: String!): AuthPayload'],
    ['logoutEverywhere', 'logoutEverywhere: Boolean'],
    ['changePassword', 'changePassword(currentPassword: String!, newPassword: String!): AuthPayload'],
    ['postTopic', 'postTopic(input: PostTopicInput!): Topic'],
    ['editTopic', 'editTopic(id: ID!, input: EditTopicInput!): Topic'],
    ['deleteTopic', 'deleteTopic(id: ID!): Topic'],
    ['postComment', 'postComment(topicId: ID!, parentId: ID, markdown: String!): CommentThread'],
    ['editComment', 'editComment(id: ID!, markdown: String!): Comment'],
    ['deleteComment', 'deleteComment(id: ID!): Comment'],
    ['voteTopic', 'voteTopic(id: ID!, vote: Boolean! = true): Topic'],
    ['voteComment', 'voteComment(id: ID!, vote: Boolean! = true): Comment'],
    ['bookmarkTopic', 'bookmarkTopic(id: ID!, bookmark: Boolean! = true): Topic'],
    ['bookmarkComment', 'bookmarkComment(id: ID!, bookmark: Boolean! = true): Comment'],
    ['ignoreTopic', 'ignoreTopic(id: ID!, ignore: Boolean! = true): Topic'],
    ['labelComment', 'labelComment(id: ID!, label: CommentLabel!, reason: String, add: Boolean! = true): Comment'],
    ['updateSettings', 'updateSettings(input: UpdateSettingsInput!): User'],
    ['createGroup', 'createGroup(path: String!, description: String): Group'],
    ['removeTopic', 'removeTopic(id: ID!, removed: Boolean! = true): Topic'],
    ['removeComment', 'removeComment(id: ID!, removed: Boolean! = true): Comment'],
    ['lockTopic', 'lockTopic(id: ID!, locked: Boolean! = true): Topic'],
    ['setTopicOfficial', 'setTopicOfficial(id: ID!, official: Boolean! = true): Topic'],
    ['editTopicTags', 'editTopicTags(id: ID!, tags: [String!]!): Topic'],
    ['banUser', 'banUser(username: String!, banned: Boolean! = true): User'],
    ['visitTopic', 'visitTopic(id: ID!): Topic'],
    [
      'uploadFile',
      'uploadFile(file: Upload!, filename: String, randomize: Boolean, deleteKey: String, expiresIn: ' +
        'Int, accessKey: String): UploadedFile',
    ],
    [
      'uploadFiles',
      'uploadFiles(files: [Upload!]!, randomize: Boolean, deleteKey: String, expiresIn: Int, accessKey: ' +
        'String): [UploadedFile]',
    ],
  ])('%s', (name, sig) => {
    expect(signature('Mutation', name)).toBe(sig);
  });

  it('every mutation field is nullable: a refused one is null with its error, applied ones keep data', () => {
    const fields = Object.values(schema.getMutationType()!.getFields());
    expect(fields.filter((f) => String(f.type).endsWith('!')).map((f) => f.name)).toEqual([]);
  });

  it('every argument with a default is non-null: omitting it and passing it are the same', () => {
    const nullableWithDefault: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
      for (const f of Object.values(type.getFields())) {
        for (const a of f.args)
          if (a.defaultValue !== undefined && !String(a.type).endsWith('!'))
            nullableWithDefault.push(`${type.name}.${f.name}(${a.name})`);
      }
    }
    expect(nullableWithDefault).toEqual([]);
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
      const root = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].includes(
        type as GraphQLObjectType,
      );
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
