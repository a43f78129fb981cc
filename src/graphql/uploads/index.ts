export { graphqlMultipart } from './multipart';
export type { GraphQLMultipart, MultipartLimits } from './multipart';
export { GraphQLUpload, Upload } from './upload';
export type { FileUpload } from './upload';
