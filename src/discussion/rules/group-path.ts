/**
 * Group paths (`tech`, `games.tabletop`, shown as `~tech`): labels of lowercase letters, digits
 * and single underscores, joined by dots.
 */

const LABEL = '[a-z0-9]+(?:_[a-z0-9]+)*';
const GROUP_PATH = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const MAX_PATH = 64;

/** Normalizes a group path as written (`~Tech` → `tech`); null when it is not a valid path. */
export function normalizeGroupPath(raw: string): string | null {
  const path = raw.trim().replace(/^~/, '').toLowerCase();
  return path.length <= MAX_PATH && GROUP_PATH.test(path) ? path : null;
}

/**
 * The `_id` range holding a group and all of its subgroups: [path, path + '/'). '/' is the
 * character right after '.', and no other character a path may contain sorts below it, so the
 * range holds `games` and `games.*` but not `games_x` or `gamesx`.
 */
export function subgroupRange(path: string): { $gte: string; $lt: string } {
  return { $gte: path, $lt: `${path}/` };
}
