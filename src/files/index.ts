/** Composition root of the file-sharing domain: storage + repositories → services. */
import fs from 'node:fs';
import type { Config, FilesConfig } from '../config';
import type { DomainModule, ModuleContext } from '../module';
import type { RateLimiter } from '../rate-limit';
import { type DiskIo, DiskStore, openByteStore } from '../storage';
import { objectCacheMetrics } from './object-cache-metrics';
import { ApiKeyRepository } from './apikey.repository';
import { ApiKeyService } from './apikey.service';
import { FileRepository } from './file.repository';
import { FileService } from './file.service';
import { FileWritesService } from './file-writes.service';
import { KeyChecks } from './key-checks';
import { parseAuthFile } from './keys';
import { defaultHashThreads, HashPool, hashMsPerMiB } from './hasher';
import { FileMaintenance } from './maintenance';
import { MetadataCache } from './metadata-cache';
import { UploadGate } from './upload-gate';
import { UploadService } from './upload.service';
import { ResumableRepository } from './resumable.repository';
import { ResumableService } from './resumable.service';

export type { UploadOptions, UploadResult, ReceivedUpload } from './upload.service';
export type { UploadSlot } from './upload-gate';
export type { StoredFile } from './file.service';
export type { ApiKeyInfo } from './apikey.service';
export type { UploadRequest, WriteCredentials } from './file-writes.service';
export type { ResumableOptions, ResumableState } from './resumable.service';
export { ResumableService } from './resumable.service';

/** The file-sharing settings (FILES_*) and what links to files are built from. */
export type FilesSettings = FilesConfig & Pick<Config, 'publicUrl'>;

export interface FilesServices {
  /** Settings the front doors' transport rules need (aliases, API keys, base URL). */
  settings: FilesSettings;
  uploads: UploadService;
  /** Who may write, and one upload from admission to commit: the rules both doors share. */
  writes: FileWritesService;
  files: FileService;
  apiKeys: ApiKeyService;
  maintenance: FileMaintenance;
  /** Resumable uploads (tus, §4.9): created, continued, committed through `uploads`. */
  resumable: ResumableService;
}

function readAuthFile(file: string): Buffer[] {
  try {
    return parseAuthFile(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`FILES_AUTH_FILE: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

export async function createFiles(
  ctx: ModuleContext,
  limits: RateLimiter,
  faults: { diskIo?: DiskIo } = {},
): Promise<DomainModule<FilesServices>> {
  const settings: FilesSettings = { ...ctx.config.files, publicUrl: ctx.config.publicUrl };
  const authFileHashes = settings.authFile ? readAuthFile(settings.authFile) : [];
  const store = await openByteStore(ctx.config, ctx.db, faults.diskIo);
  if (store instanceof DiskStore) objectCacheMetrics(ctx.metrics.registry, store);
  const gate = new UploadGate(limits, settings);
  const repo = new FileRepository(ctx.db, { ms: settings.commitDelayMs, writersInFlight: () => gate.inProgress });
  const cache = store.kind === 'disk' ? new MetadataCache(settings.metadataCacheBytes) : undefined;
  const files = new FileService(repo, store, ctx.log, new KeyChecks(limits, settings), cache);
  const msPerMiB = hashMsPerMiB();
  const hashes = new HashPool(defaultHashThreads(msPerMiB));
  const uploads = new UploadService(repo, store, settings, gate, ctx.log, cache, hashes);
  const apiKeys = new ApiKeyService(new ApiKeyRepository(ctx.db), authFileHashes);
  const writes = new FileWritesService(settings, apiKeys, uploads);
  const resumableRepo = new ResumableRepository(ctx.db);
  await resumableRepo.ensureIndexes();
  const resumable = new ResumableService(resumableRepo, store.partials, uploads, writes, settings, ctx.log, hashes);
  const maintenance = new FileMaintenance(repo, files, store, ctx.log, resumable);
  return {
    services: {
      settings,
      uploads,
      writes,
      resumable,
      files,
      apiKeys,
      maintenance,
    },
    start: () => {
      // Logged at start: the app's logger does not exist yet while the modules are built.
      ctx.log.info(
        { hashThreads: hashes.threads, sha256MsPerMiB: Math.round(msPerMiB * 100) / 100 },
        hashes.threads > 0 ? 'uploads are hashed on worker threads' : 'uploads are hashed on the event loop',
      );
      return maintenance.start(settings.cleanupInterval);
    },
    stop: async () => {
      await maintenance.stop();
      await hashes.close();
    },
  };
}
