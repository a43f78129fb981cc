/**
 * The one validation helper of the project. A use case's input is a class (`*.input.ts`) whose
 * properties carry class-validator decorators (the rules of ./rules.ts); `validateInput` checks an
 * input against them and turns every failure into the domain's ValidationError, one issue per
 * property in declaration order, so a caller sees every problem at once. Both front doors go
 * through it: the services validate their inputs, GraphQL its argument classes (schema.ts),
 * /api/beta its query parameters (rest/beta/query.inputs.ts) with its spec's own wording.
 */
import 'reflect-metadata';
import { getMetadataStorage, validateSync } from 'class-validator';
import { Issue, ValidationError } from '../../core/errors';

type RuleLookup = (target: unknown, schema: unknown, always: boolean, strict: boolean, groups?: string[]) => unknown[];

/**
 * class-validator looks up a class's rules on every validateSync: it walks every class that has
 * rules (an `instanceof` test each) and filters them, then groups the class's rules by property.
 * That showed in CPU profiles of bench/load.js, for an answer that never changes once
 * the class's module has loaded. Both steps are remembered here, per class, for the way issuesOf
 * calls it (no schema, no groups); a rule added later (a class loaded later) forgets them all.
 * If class-validator's storage no longer has these methods, nothing is remembered.
 */
function rememberRuleLookups(): void {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas?: RuleLookup;
    groupByPropertyName?: (rules: unknown[]) => Record<string, unknown[]>;
    addValidationMetadata?: (rule: unknown) => void;
  };
  const lookup = storage.getTargetValidationMetadatas;
  const group = storage.groupByPropertyName;
  const add = storage.addValidationMetadata;
  if (typeof lookup !== 'function' || typeof group !== 'function' || typeof add !== 'function') return;
  let rules = new Map<unknown, unknown[]>();
  let grouped = new WeakMap<unknown[], Record<string, unknown[]>>();
  storage.addValidationMetadata = function (rule) {
    rules = new Map();
    grouped = new WeakMap();
    return add.call(this, rule);
  };
  storage.getTargetValidationMetadatas = function (target, schema, always, strict, groups) {
    if (schema !== undefined || always || strict || (groups && groups.length > 0))
      return lookup.call(this, target, schema, always, strict, groups);
    let found = rules.get(target);
    if (!found) rules.set(target, (found = lookup.call(this, target, schema, always, strict, groups)));
    return found;
  };
  storage.groupByPropertyName = function (list) {
    let byProperty = grouped.get(list);
    if (!byProperty) grouped.set(list, (byProperty = group.call(this, list)));
    return byProperty;
  };
}
rememberRuleLookups();

/** What a rule may attach to its issues: the name a client knows the value by, the REST spec's class name. */
export interface IssueContext {
  field?: string;
  exception?: string;
}

/** An instance of `cls` holding the defined values of `values` (undefined ones stay unset). */
export function toInput<T extends object>(cls: new () => T, values: object): T {
  if (values instanceof cls) return values;
  const input = new cls();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) (input as Record<string, unknown>)[k] = v;
  return input;
}

/** Every problem of `input`, one per property at most, in the order the class declares them. */
export function issuesOf(input: object): Issue[] {
  // Rules apply to undefined too (each decides whether absent is fine); unknown values are not ours to judge.
  const errors = validateSync(input, {
    stopAtFirstError: true,
    forbidUnknownValues: false,
    validationError: { target: false },
  });
  const issues: Issue[] = [];
  for (const e of errors) {
    const [key] = Object.keys(e.constraints ?? {});
    if (key === undefined) continue;
    const ctx = (e.contexts?.[key] ?? {}) as IssueContext;
    const issue: Issue = { field: ctx.field ?? e.property, message: e.constraints![key]! };
    if (ctx.exception !== undefined) issue.exception = ctx.exception;
    issues.push(issue);
  }
  return issues;
}

/** The input as an instance of `cls` when it passes its rules; otherwise a ValidationError listing every problem. */
export function validateInput<T extends object>(cls: new () => T, values: object): T {
  const input = toInput(cls, values);
  const issues = issuesOf(input);
  if (issues.length > 0) throw new ValidationError(issues);
  return input;
}
