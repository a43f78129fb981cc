/** One topic with its comment tree (docs/discussion-api.md §6). */
import { COMMENT_ORDERS } from '../views';
import { Id36, OneOf } from './rules';

export class TopicReadInput {
  /** The topic's id36. */
  @Id36() id!: string;
  /** One of COMMENT_ORDERS; absent: the viewer's preferred order (relevance for anonymous viewers). */
  @OneOf(COMMENT_ORDERS, (v) => `${JSON.stringify(v)} is not one of ${COMMENT_ORDERS.join(', ')}`) order?: string;
  /** Record the visit of a logged-in viewer after computing the response (default true). */
  recordVisit?: boolean;
  /**
   * Load the comments' Markdown source for the viewers allowed to see it (default true). A caller
   * that never shows it (REST) passes false, so the tree reads no comment text but the HTML.
   */
  markdown?: boolean;
}
