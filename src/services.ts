/** Every service of the app, built once per app instance and shared by both front doors. */
import type { DiscussionServices } from './discussion';
import type { FilesServices } from './files';

export interface RuntimeInfo {
  databaseKind: string;
}

export interface Services {
  runtime: RuntimeInfo;
  discussion: DiscussionServices;
  files: FilesServices;
}
