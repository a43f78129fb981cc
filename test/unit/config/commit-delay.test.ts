/** FILES_COMMIT_DELAY_MS: how long a new file's metadata insert may wait for other uploads' (insert-batcher.ts). */
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

describe('FILES_COMMIT_DELAY_MS', () => {
  it('defaults to 2 ms; 0 turns the wait off', () => {
    expect(loadConfig({}).files.commitDelayMs).toBe(2);
    expect(loadConfig({ FILES_COMMIT_DELAY_MS: '0' }).files.commitDelayMs).toBe(0);
    expect(loadConfig({ FILES_COMMIT_DELAY_MS: '25' }).files.commitDelayMs).toBe(25);
  });

  it.each(['-1', 'soon', '1.5', '1001'])('%s stops start-up with a message naming it', (value) => {
    expect(problems({ FILES_COMMIT_DELAY_MS: value })).toEqual([expect.stringContaining('FILES_COMMIT_DELAY_MS')]);
  });
});
