/** Configuration problems for an environment: what start-up would list and exit 2 on (empty when valid). */
import { ConfigError, loadConfig } from '../../src/config';

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
