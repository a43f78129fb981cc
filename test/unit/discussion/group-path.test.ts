/** Group paths: normalization, and the _id range that holds a group with its subgroups. */
import { normalizeGroupPath, subgroupRange } from '../../../src/discussion/rules/group-path';

const isInGroup = (path: string, group: string) => path === group || path.startsWith(`${group}.`);

describe('normalizeGroupPath', () => {
  it.each([
    ['tech', 'tech'],
    ['~Tech', 'tech'],
    ['  ~games.Tabletop ', 'games.tabletop'],
    ['a_b.c1', 'a_b.c1'],
  ])('%p → %p', (raw, path) => expect(normalizeGroupPath(raw)).toBe(path));

  it.each(['', '~', 'a..b', '.a', 'a.', 'a b', 'a__b', '_a', 'a_', '~~a', 'é', 'x'.repeat(65)])(
    '%p is not a path',
    (raw) => {
      expect(normalizeGroupPath(raw)).toBeNull();
    },
  );
});

describe('subgroupRange', () => {
  const inRange = (path: string, group: string) => {
    const r = subgroupRange(group);
    return path >= r.$gte && path < r.$lt;
  };
  const paths = [
    'games',
    'games.tabletop',
    'games.tabletop.chess',
    'games_x',
    'gamesx',
    'games0',
    'game',
    'gamer',
    'tech',
    'a.games',
  ];

  it('holds exactly the group and its subgroups', () => {
    for (const group of ['games', 'games.tabletop', 'game', 'tech']) {
      for (const path of paths)
        expect([group, path, inRange(path, group)]).toEqual([group, path, isInGroup(path, group)]);
    }
    expect(paths.filter((p) => inRange(p, 'games'))).toEqual(['games', 'games.tabletop', 'games.tabletop.chess']);
  });
});
