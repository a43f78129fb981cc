/** Votes and bookmarks name the kind of post they are on. */
import type { PostKind } from '../services';
import { OneOf } from './rules';

export class PostKindInput {
  @OneOf(['topic', 'comment'], () => "Must be 'topic' or 'comment'", { required: true }) kind!: PostKind;
}
