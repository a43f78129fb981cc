/**
 * Database.syncIndexes (src/db/connection.ts) creates the declared indexes and drops the ones a schema
 * retired (retireIndexes), as a database made by an earlier version has them; any other index stays.
 */
import crypto from 'node:crypto';
import { Schema } from 'mongoose';
import { Database, retireIndexes } from '../../src/db/connection';
import { withDatabaseName } from '../../src/server';

const dbName = `agora_retired_${crypto.randomBytes(5).toString('hex')}`;
let db: Database;

beforeAll(async () => {
  db = await Database.connect(withDatabaseName(process.env.MONGODB_URI!, dbName));
});
afterAll(async () => {
  await db.conn.dropDatabase();
  await db.close();
});

it('creates the declared indexes, drops the retired ones, keeps the rest', async () => {
  const schema = new Schema({ _id: Number, a: Number, b: Number, c: Number });
  schema.index({ a: 1, b: 1 });
  retireIndexes(schema, ['a_1', 'gone_1']);
  const Model = db.model('RetiredIndexThing', schema, 'things');
  // As an earlier version left it: the retired index, and an operator's own.
  await Model.collection.createIndex({ a: 1 }, { name: 'a_1' });
  await Model.collection.createIndex({ c: 1 }, { name: 'c_1' });

  await db.syncIndexes();
  const names = async () => (await Model.collection.indexes()).map((i) => i.name).sort();
  expect(await names()).toEqual(['_id_', 'a_1_b_1', 'c_1']);

  // Idempotent: nothing to drop the second time.
  await db.syncIndexes();
  expect(await names()).toEqual(['_id_', 'a_1_b_1', 'c_1']);
});
