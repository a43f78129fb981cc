import type { Config } from '../config';
import type { Services } from '../services';

/** What a REST front door plugin is registered with. */
export interface RestOptions {
  config: Config;
  services: Services;
}
