/**
 * Subscription execution shared between subscribers. graphql-js executes an operation's selection
 * once per event per subscription; with a thousand subscribers of one topic that is a thousand
 * identical executions per comment. The hub hands every subscription of one viewer the same
 * message object for an event, so the result of executing one operation text (with its variables)
 * on that object is the same for all of them and is computed once.
 */
import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

/** Per message object: operation key → its result. Dropped with the message. */
const results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/** `subscribe` for graphql-ws: as graphql-js' own, with each event's execution shared under `operationKey`. */
export async function sharedSubscribe(
  args: ExecutionArgs,
  operationKey: string,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const run = (event: unknown): Promise<ExecutionResult> => {
    if (typeof event !== 'object' || event === null) return Promise.resolve(execute({ ...args, rootValue: event }));
    let byOperation = results.get(event);
    if (!byOperation) results.set(event, (byOperation = new Map()));
    let result = byOperation.get(operationKey);
    if (!result) {
      result = Promise.resolve(execute({ ...args, rootValue: event }));
      byOperation.set(operationKey, result);
    }
    return result;
  };
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const r = await iterator.next();
      return r.done ? { value: undefined, done: true } : { value: await run(r.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(err: unknown) {
      await iterator.return?.();
      throw err;
    },
    [Symbol.asyncIterator]: () => mapped,
  };
  return mapped;
}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return (
    typeof x === 'object' && x !== null && typeof (x as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}
