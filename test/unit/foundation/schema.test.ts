import fs from 'node:fs';
import path from 'node:path';
import { printGraphQLSchema } from '../../../src/graphql/schema';

describe('schema.graphql', () => {
  it('is the schema the code builds (regenerate with `npm run schema`)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../../schema.graphql'), 'utf8');
    expect(printGraphQLSchema()).toBe(committed);
  });
});
