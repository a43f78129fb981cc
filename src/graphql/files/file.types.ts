/** GraphQL object types of file sharing. */
import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type';
import { DateTimeScalar } from '../discussion/scalars';

/**
 * What anyone may know of a stored file; shared by FileInfo (the record) and UploadedFile (an
 * upload's answer). Decorated so both inherit its fields; never used as a field's type, so it is
 * not in the schema.
 */
@ObjectType('FileFacts')
export abstract class FileFacts {
  @Field(() => String, {
    description:
      'Public URL of the file (`{base}/{filename}`): JSON information with `Accept: application/json`, ' +
      'otherwise the file itself.',
  })
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

@ObjectType('FileInfo', {
  implements: Node,
  description: 'A stored file as anyone can see it: its links, size, type and checksum.',
})
export class FileInfo extends FileFacts implements Node {
  readonly kind = 'file';

  @Field(() => ID, {
    description:
      'The global id: opaque, unique across the whole schema; `node(id:)` finds the file again (with its ' +
      'access key in the Files-Access-Key header when protected).',
  })
  id!: string;
}

/**
 * The answer of an upload: the file's facts and the delete key, which exists only here. Not a
 * Node (no id): the record a cache keeps is `file`.
 */
@ObjectType('UploadedFile', {
  description:
    'A file just uploaded (or overwritten): the stored file (`file`, also its facts flat here) plus the ' +
    'delete key, which is shown only here.',
})
export class UploadedFile extends FileFacts {
  @Field(() => String, {
    description:
      'The key that deletes or overwrites the file: the one given, or 30 generated characters. Keep it; ' +
      'it is stored only as a hash.',
  })
  deleteKey!: string;

  @Field(() => FileInfo, {
    description: 'The stored file as a record (the same as `file(filename:)` and `node(id:)` answer).',
  })
  file!: FileInfo;
}

@ObjectType('ResumableUpload', {
  description:
    'A resumable upload (tus 1.0.0, docs/files-api.md §4.9): hand `uploadUrl` to a tus client (Uppy, ' +
    'tus-js-client) to send the bytes with PATCH; the last byte stores the file as `PUT /upload` would.',
})
export class ResumableUpload {
  @Field(() => String, {
    description: 'The upload URL (HEAD, PATCH, DELETE; GET answers the finished upload). It is the only key to it.',
  })
  uploadUrl!: string;

  @Field(() => GraphQLSafeInt, { description: 'Bytes stored so far.' })
  offset!: number;

  @Field(() => GraphQLSafeInt, { description: 'Bytes the upload will have (Upload-Length).' })
  length!: number;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'When the unfinished upload and its bytes are removed (FILES_RESUMABLE_EXPIRY); null once finished.',
  })
  expiresAt!: Date | null;

  @Field(() => FileInfo, {
    nullable: true,
    description:
      'The stored file once the last byte arrived (null before, and when it is protected by an access key not sent).',
  })
  file!: FileInfo | null;
}
