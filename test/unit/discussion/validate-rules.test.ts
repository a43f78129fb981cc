/**
 * validate.ts checks inputs with class-validator's public API: the issues are those of each class's
 * own rules (a subclass adds its parent's), also for a class whose rules are registered after other
 * classes were validated, and class-validator's metadata storage is left as the library made it.
 */
import { IsInt, Min } from 'class-validator';
import { getMetadataStorage } from 'class-validator';
import { issuesOf, toInput } from '../../../src/discussion/inputs/validate';

class Counted {
  @IsInt({ message: 'n must be an integer' })
  n?: unknown;
}

describe('validation rules', () => {
  it('gives each class its own rules, the same on every call', () => {
    for (let i = 0; i < 3; i++) {
      expect(issuesOf(toInput(Counted, { n: 'x' }))).toEqual([{ field: 'n', message: 'n must be an integer' }]);
      expect(issuesOf(toInput(Counted, { n: 2 }))).toEqual([]);
    }
  });

  it('sees the rules of a class defined after others were validated, and its parent’s', () => {
    expect(issuesOf(toInput(Counted, { n: 'x' }))).toHaveLength(1);
    class Bounded extends Counted {
      @Min(10, { message: 'm must be at least 10' })
      m?: unknown;
    }
    expect(issuesOf(toInput(Bounded, { n: 'x', m: 3 }))).toEqual([
      { field: 'm', message: 'm must be at least 10' },
      { field: 'n', message: 'n must be an integer' },
    ]);
    expect(issuesOf(toInput(Bounded, { n: 1, m: 30 }))).toEqual([]);
    // The parent's lookup was forgotten when the subclass's rule came: still its own rules only.
    expect(issuesOf(toInput(Counted, { n: 1, m: 3 }))).toEqual([]);
  });

  it("leaves class-validator's metadata storage as it is (no method replaced)", () => {
    const storage = getMetadataStorage();
    for (const method of ['getTargetValidationMetadatas', 'groupByPropertyName', 'addValidationMetadata']) {
      expect([method, Object.prototype.hasOwnProperty.call(storage, method)]).toEqual([method, false]);
    }
  });
});
