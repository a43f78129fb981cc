/** Comments: a new one (top level or a reply), or new text for one. */
import type { PostRef } from '../services';
import { CommentText } from './rules';

export class PostCommentInput {
  /** Topic id36 (or number); checked when it is loaded. */
  topicId!: PostRef;
  /** Parent comment id36 (or number) for a reply; checked when it is loaded. */
  parentId?: PostRef | null;
  @CommentText() markdown!: string;
}

export class CommentTextInput {
  @CommentText() markdown!: string;
}
