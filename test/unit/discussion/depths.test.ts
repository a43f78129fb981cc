import { depthsFromParents } from '../../../src/discussion/rules/depths';

const depths = (links: { _id: number; parentId?: number | null }[]) => Object.fromEntries(depthsFromParents(links));

describe('depthsFromParents', () => {
  it('counts ancestors, in any order of the links', () => {
    const links = [
      { _id: 4, parentId: 2 },
      { _id: 1, parentId: null },
      { _id: 2, parentId: 1 },
      { _id: 3, parentId: 1 },
      { _id: 5 },
      { _id: 6, parentId: 4 },
    ];
    const want = { 1: 0, 2: 1, 3: 1, 4: 2, 5: 0, 6: 3 };
    expect(depths(links)).toEqual(want);
    expect(depths([...links].reverse())).toEqual(want);
  });

  it('ends a chain at a parent it was not given: the ancestors found', () => {
    expect(
      depths([
        { _id: 8, parentId: 7 },
        { _id: 9, parentId: 8 },
      ]),
    ).toEqual({ 8: 0, 9: 1 });
  });

  it('ends a cycle (data edited by hand) instead of hanging', () => {
    const d = depthsFromParents([
      { _id: 1, parentId: 2 },
      { _id: 2, parentId: 1 },
      { _id: 3, parentId: 2 },
    ]);
    expect([...d.keys()].sort()).toEqual([1, 2, 3]);
    expect(d.get(3)).toBe(d.get(2)! + 1);
  });

  it('takes a chain 100,000 deep without recursion', () => {
    const links = Array.from({ length: 100_000 }, (_, i) => ({ _id: i, parentId: i === 0 ? null : i - 1 }));
    const d = depthsFromParents(links.reverse());
    expect(d.get(99_999)).toBe(99_999);
    expect(d.get(0)).toBe(0);
  });
});
