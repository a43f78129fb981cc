/** docs/files-api.md §2.2 JSON preference table. */
import { prefersJson } from '../../../src/rest/files/accept';

describe('§2.2 JSON preference', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json, text/plain, */*',
    'text/html;q=0.9, application/json',
  ])('%j → JSON', (accept) => expect(prefersJson(accept)).toBe(true));

  it.each([
    'text/plain, application/json',
    'application/json;q=0.5, text/plain',
    '*/*',
    'application/*',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    '',
    undefined,
  ])('%j → not JSON', (accept) => expect(prefersJson(accept)).toBe(false));

  it('ignores entries with q=0 or an unparsable q', () => {
    expect(prefersJson('text/plain;q=0, application/json')).toBe(true);
    expect(prefersJson('text/plain;q=abc, application/json')).toBe(true);
    expect(prefersJson('application/json;q=0')).toBe(false);
  });

  it('takes the first of the highest q in header order', () => {
    expect(prefersJson('text/plain;q=0.8, application/json;q=0.8')).toBe(false);
    expect(prefersJson('text/plain;q=0.7, application/json;q=0.8')).toBe(true);
    expect(prefersJson('application/json;Q=1, text/plain')).toBe(true);
  });
});
