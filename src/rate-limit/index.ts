/** Composition root of the shared rate limits: the counters' repository, the limiter, its sweeper. */
import type { DomainModule, ModuleContext } from '../module';
import { RateLimitRepository } from './rate-limit.repository';
import { RateLimiter } from './rate-limiter';

export { RateLimiter } from './rate-limiter';
export type { RateRule, RateScope } from './rate-limiter';

/** How often each instance forgets attempts that left their window. */
const SWEEP_MS = 10 * 60 * 1000;

export function createRateLimits(ctx: Pick<ModuleContext, 'db' | 'log'>): DomainModule<RateLimiter> {
  const limiter = new RateLimiter(new RateLimitRepository(ctx.db));
  let sweeper: NodeJS.Timeout | undefined;
  return {
    services: limiter,
    async start() {
      const sweep = () => {
        limiter.purge(new Date()).catch((err) => ctx.log.warn({ err }, 'rate-limit sweep failed'));
      };
      sweeper = setInterval(sweep, SWEEP_MS);
      sweeper.unref();
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
    },
  };
}
