/** Changes to a topic; absent fields stay as they are (null markdown or link: none). */
import { Link, OptionalMarkdown, Tags, Title } from './rules';

export class EditTopicInput {
  @Title({ optional: true }) title?: string;
  @OptionalMarkdown() markdown?: string | null;
  @Link() link?: string | null;
  @Tags() tags?: string[] | null;
}

/** The tags of a topic, replaced by its author or an admin. */
export class TopicTagsInput {
  @Tags() tags!: string[];
}
