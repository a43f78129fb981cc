/**
 * The one validation helper of the project. A use case's input is a class (`*.input.ts`) whose
 * properties carry class-validator decorators (the rules of ./rules.ts); `validateInput` checks an
 * input against them and turns every failure into the domain's ValidationError, one issue per
 * property in declaration order, so a caller sees every problem at once. Both front doors go
 * through it: the services validate their inputs, GraphQL its argument classes (schema.ts),
 * /api/beta its query parameters (rest/beta/query.inputs.ts) with its spec's own wording.
 */
import 'reflect-metadata';
import { validateSync } from 'class-validator';
import { Issue, ValidationError } from '../../core/errors';

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
