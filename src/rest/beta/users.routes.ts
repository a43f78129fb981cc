/** GET /user/{username}, /user/{username}/topics, /user/{username}/comments (docs/discussion-api.md §7). */
import type { FastifyInstance } from 'fastify';
import type { RestOptions } from '../options';
import { presentFeedComment, presentPagination, presentTopic } from './presenters';
import { baseUrl, pick, queryOf, requireSegment } from './request';
import { historyPageInput, userPageInput } from './query.inputs';

const PAGE_PARAMS = ['limit', 'before', 'after'] as const;
type UserParams = { Params: { username: string } };

export async function userRoutes(app: FastifyInstance, { services, config }: RestOptions): Promise<void> {
  const { auth, history } = services.discussion;

  app.get<UserParams>('/user/:username', async (req) => {
    const username = requireSegment(req.params.username);
    const actor = await auth.actorFor(req.headers.authorization);
    const q = pick(queryOf(req), PAGE_PARAMS);
    const { user, page } = await history.history(actor, username, historyPageInput(q));
    const base = baseUrl(req, config);
    return {
      user: { username: user.username },
      history: page.items.map((item) =>
        item.kind === 'topic' ? presentTopic(item.topic, base) : presentFeedComment(item.comment),
      ),
      pagination: presentPagination(
        page.items.length,
        page.pageInfo,
        `${base}/api/beta/user/${encodeURIComponent(user.username)}`,
        [['limit', q.limit]],
      ),
    };
  });

  app.get<UserParams>('/user/:username/topics', async (req) => {
    const username = requireSegment(req.params.username);
    const actor = await auth.actorFor(req.headers.authorization);
    const q = pick(queryOf(req), PAGE_PARAMS);
    const { user, page } = await history.topics(actor, username, userPageInput(q));
    const base = baseUrl(req, config);
    return {
      topics: page.items.map((t) => presentTopic(t, base)),
      pagination: presentPagination(
        page.items.length,
        page.pageInfo,
        `${base}/api/beta/user/${encodeURIComponent(user.username)}/topics`,
        [['limit', q.limit]],
      ),
    };
  });

  app.get<UserParams>('/user/:username/comments', async (req) => {
    const username = requireSegment(req.params.username);
    const actor = await auth.actorFor(req.headers.authorization);
    const q = pick(queryOf(req), PAGE_PARAMS);
    const { user, page } = await history.comments(actor, username, userPageInput(q));
    const base = baseUrl(req, config);
    return {
      comments: page.items.map(presentFeedComment),
      pagination: presentPagination(
        page.items.length,
        page.pageInfo,
        `${base}/api/beta/user/${encodeURIComponent(user.username)}/comments`,
        [['limit', q.limit]],
      ),
    };
  });
}
