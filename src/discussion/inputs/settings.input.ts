/** Changes to the caller's settings; absent fields stay as they are. */
import { COMMENT_ORDERS, CommentOrder, HistoryVisibility } from '../views';
import { OneOf, Rule } from './rules';

export class SettingsInput {
  @OneOf(['everyone', 'logged_in'], () => "Must be 'everyone' or 'logged_in'") historyVisibility?: HistoryVisibility;
  @Rule('boolean', (v) => (v === undefined || typeof v === 'boolean' ? null : 'Must be a boolean'))
  collapseOldComments?: boolean;
  @OneOf(COMMENT_ORDERS, () => `Must be one of ${COMMENT_ORDERS.join(', ')}`) defaultCommentOrder?: CommentOrder;
}
