/** A new topic: a text topic (`markdown`) or a link topic (`link`) in an existing group. */
import { GroupPath, Link, OptionalMarkdown, Tags, Title } from './rules';

export class PostTopicInput {
  /** The group's path, with or without `~` (an invalid path names no group). */
  @GroupPath('Unknown group') group!: string;
  @Title() title!: string;
  /** Markdown text (text topics; ignored in output for link topics). */
  @OptionalMarkdown() markdown?: string | null;
  /** An http(s) URL: makes a link topic. */
  @Link() link?: string | null;
  @Tags() tags?: string[] | null;
}
