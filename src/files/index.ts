/** Composition root of the file-sharing domain: storage + repositories → services. */
import type { DomainModule, ModuleContext } from '../module';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FilesServices {}

export async function createFiles(_ctx: ModuleContext): Promise<DomainModule<FilesServices>> {
  return { services: {} };
}
