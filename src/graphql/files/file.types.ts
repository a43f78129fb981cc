/** GraphQL object types of file sharing. */
import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../discussion/scalars';

@ObjectType({ description: 'A stored file as anyone can see it: its links, size, type and checksum.' })
export class FileInfo {
  @Field(() => String, { description: 'Public URL of the file (`{base}/{filename}`): JSON information with `Accept: application/json`, otherwise the file itself.' })
  url!: string;

  @Field(() => String, { description: 'URL that always serves the file itself (`{base}/selif/{filename}`).' })
  directUrl!: string;

  @Field(() => String, { description: 'The stored filename: lowercase [a-z0-9.-], always with an extension.' })
  filename!: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When the file expires; null when it never does.' })
  expiresAt!: Date | null;

  @Field(() => GraphQLSafeInt, { description: 'Size in bytes (a 53-bit safe integer: files may exceed 2³¹ bytes).' })
  size!: number;

  @Field(() => String, { description: 'MIME type detected from the first 512 bytes, never from the name.' })
  mimetype!: string;

  @Field(() => String, { description: 'Lowercase hex SHA-256 of the bytes.' })
  sha256sum!: string;
}

@ObjectType({ description: 'A file just uploaded (or overwritten): its information plus the delete key, which is shown only here.' })
export class UploadedFile extends FileInfo {
  @Field(() => String, { description: 'The key that deletes or overwrites the file: the one given, or 30 generated characters. Keep it; it is stored only as a hash.' })
  deleteKey!: string;
}
