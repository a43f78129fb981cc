/** What every discussion service is built from (assembled once in index.ts). */
import type { DiscussionConfig } from '../config';
import type { EventRecorder } from '../events/types';
import type { RateLimiter } from '../rate-limit';
import type { CommentRepository } from './comment.repository';
import type { CounterRepository } from './counter.repository';
import type { GroupRepository } from './group.repository';
import type { LabelRepository } from './label.repository';
import type { MarkRepository } from './mark.repository';
import type { Clock } from './services';
import type { TopicRepository } from './topic.repository';
import type { UserRepository } from './user.repository';
import type { ViewerDirectory } from './viewer';

export interface DiscussionDeps {
  config: DiscussionConfig;
  jwtSecret: string;
  clock: Clock;
  viewers: ViewerDirectory;
  counters: CounterRepository;
  users: UserRepository;
  groups: GroupRepository;
  topics: TopicRepository;
  comments: CommentRepository;
  marks: MarkRepository;
  labels: LabelRepository;
  /** The shared rate limits (login, registration). */
  limits: RateLimiter;
  /** The live events log (src/events): services record each change a subscriber may see. */
  events: EventRecorder;
}
