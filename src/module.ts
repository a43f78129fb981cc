/** What each domain area receives to build its services, and what it gives back. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Database } from './db/connection';
import type { Metrics } from './metrics';

export interface ModuleContext {
  config: Config;
  db: Database;
  metrics: Metrics;
  jwtSecret: string;
  /** Which database is in use ('ferretdb', 'mongod', 'external', …). */
  databaseKind: string;
  log: FastifyBaseLogger;
}

export interface DomainModule<S> {
  services: S;
  /** Background work started after the server listens (sweepers); must be safe on every instance. */
  start?(): Promise<void>;
  /** Stops background work; called on shutdown before the database closes. */
  stop?(): Promise<void>;
}
