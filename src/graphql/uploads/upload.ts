/** The `Upload` scalar of the GraphQL multipart request spec and the value a resolver receives. */
import type { Readable } from 'node:stream';
import { GraphQLError, GraphQLScalarType } from 'graphql';

/** One file of a multipart request, available once its part arrived. */
export interface FileUpload {
  /** The part's `filename` parameter ('' when none). */
  filename: string;
  mimetype: string;
  encoding: string;
  /**
   * The file's bytes; callable once per place the file fills (a file mapped to several variables
   * is kept in a temporary file so each reader gets every byte). Errors with PayloadTooLargeError
   * or ClientClosedRequestError.
   */
  createReadStream(): Readable;
}

/**
 * Placed in the operation's variables where `map` points. Resolves when the file's part arrives;
 * rejects when the request ends without it, breaks a limit or the client goes away.
 */
export class Upload {
  readonly promise: Promise<FileUpload>;
  resolve!: (file: FileUpload) => void;
  reject!: (err: Error) => void;
  /** Set once the file's part arrived. */
  file?: FileUpload;
  /** How many places of the operation the `map` fills with this file (the spec allows several). */
  uses = 1;

  constructor() {
    this.promise = new Promise<FileUpload>((resolve, reject) => {
      this.resolve = (file) => {
        this.file = file;
        resolve(file);
      };
      this.reject = reject;
    });
    // A resolver may never await it (e.g. the operation failed validation).
    this.promise.catch(() => {});
  }
}

export const GraphQLUpload = new GraphQLScalarType<Upload, never>({
  name: 'Upload',
  description:
    'A file sent with the GraphQL multipart request spec (multipart/form-data with the fields ' +
    '`operations`, `map`, then the files; the request needs an `Apollo-Require-Preflight` header). ' +
    'Only valid as a variable.',
  parseValue(value) {
    if (value instanceof Upload) return value;
    throw new GraphQLError('Upload value invalid: send the file in a multipart request', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  },
  parseLiteral(ast) {
    throw new GraphQLError('Upload literal unsupported: pass the file as a variable', {
      nodes: [ast],
      extensions: { code: 'BAD_USER_INPUT' },
    });
  },
  serialize() {
    throw new GraphQLError('Upload serialization unsupported');
  },
});
