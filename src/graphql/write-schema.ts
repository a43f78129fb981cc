/** `npm run schema`: regenerates schema.graphql from the code. */
import fs from 'node:fs';
import path from 'node:path';
import { printGraphQLSchema } from './schema';

const target = path.resolve(__dirname, '..', '..', 'schema.graphql');
fs.writeFileSync(target, printGraphQLSchema());
console.log(`wrote ${target}`);
