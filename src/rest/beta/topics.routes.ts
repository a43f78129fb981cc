/** GET /topics (docs/discussion-api.md §5) and GET /topic/{topic_id36} (6). */
import type { FastifyInstance } from 'fastify';
import type { RestOptions } from '../options';
import { presentCommentTreeJson, presentPagination, presentTopic } from './presenters';
import { baseUrl, pick, queryOf, requireSegment } from './request';
import { JSON_CONTENT_TYPE } from './errors';
import { topicListInput, topicReadInput } from './query.inputs';

const LIST_PARAMS = ['limit', 'before', 'after', 'period', 'tag', 'order'] as const;

export async function topicRoutes(app: FastifyInstance, { services, config }: RestOptions): Promise<void> {
  const { auth, topics } = services.discussion;

  app.get('/topics', async (req) => {
    const actor = await auth.actorFor(req.headers.authorization);
    const q = pick(queryOf(req), LIST_PARAMS);
    const page = await topics.list(actor, topicListInput(q));
    const base = baseUrl(req, config);
    return {
      topics: page.items.map((t) => presentTopic(t, base)),
      pagination: presentPagination(page.items.length, page.pageInfo, `${base}/api/beta/topics`, [
        ['limit', q.limit],
        ['period', q.period],
        ['tag', q.tag],
        ['order', q.order],
      ]),
    };
  });

  app.get<{ Params: { topic_id36: string } }>('/topic/:topic_id36', async (req, reply) => {
    const topicId36 = requireSegment(req.params.topic_id36);
    const actor = await auth.actorFor(req.headers.authorization);
    const { id, order } = topicReadInput({ topic_id36: topicId36, ...pick(queryOf(req), ['order'] as const) });
    // HEAD answers like GET but records no visit.
    // REST never shows Markdown source: the tree need not read it.
    const result = await topics.read(actor, id, { order, recordVisit: req.method !== 'HEAD', markdown: false });
    const base = baseUrl(req, config);
    // Serialized without recursion: reply chains may be thousands of levels deep.
    return reply
      .type(JSON_CONTENT_TYPE)
      .send(
        `{"topic":${JSON.stringify(presentTopic(result.topic, base))},` +
          `"comments":${presentCommentTreeJson(result.comments)}}`,
      );
  });
}
