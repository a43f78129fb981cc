import { Field, InputType } from 'type-graphql';

@InputType('PostTopicInput', { description: 'A new topic: a text topic (`markdown`) or a link topic (`link`).' })
export class PostTopicInput {
  @Field(() => String, { description: "The group's path, with or without `~`." })
  group!: string;

  @Field(() => String, { description: 'The title.' })
  title!: string;

  @Field(() => String, { nullable: true, description: 'The text, in Markdown (raw HTML is not rendered).' })
  markdown?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL: makes a link topic.' })
  link?: string | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Tags: letters, digits and spaces, hierarchy by `.` (`ask.survey`).',
  })
  tags?: string[] | null;
}

@InputType('EditTopicInput', { description: 'Changes to a topic; omitted fields stay as they are.' })
export class EditTopicInput {
  @Field(() => String, { nullable: true, description: 'The new title.' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'The new text, in Markdown (author only).' })
  markdown?: string | null;

  @Field(() => String, { nullable: true, description: 'The new link (null removes it).' })
  link?: string | null;

  @Field(() => [String], { nullable: true, description: 'The new tags (replacing the old ones).' })
  tags?: string[] | null;
}
