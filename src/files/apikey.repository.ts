/** API keys of the files API (docs/files-api.md §10): only the SHA-256 of a key is stored. */
import { isValidObjectId, Model, Schema, Types } from 'mongoose';
import type { Database } from '../db/connection';

export interface ApiKeyRecord {
  _id: Types.ObjectId;
  name: string;
  /** Lowercase hex SHA-256 of the key. */
  digest: string;
  createdAt: Date;
}

const schema = new Schema<ApiKeyRecord>(
  {
    name: { type: String, default: '' },
    digest: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'files_api_keys', versionKey: false },
);
schema.index({ digest: 1 }, { unique: true });

export class ApiKeyRepository {
  private readonly model: Model<ApiKeyRecord>;

  constructor(db: Database) {
    this.model = db.model<ApiKeyRecord>('FilesApiKey', schema);
  }

  async insert(name: string, digest: string, createdAt: Date): Promise<ApiKeyRecord> {
    const doc = await this.model.create({ name, digest, createdAt });
    return doc.toObject() as ApiKeyRecord;
  }

  async existsWithDigest(digest: string): Promise<boolean> {
    return (await this.model.exists({ digest }).exec()) !== null;
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.model.find({}, { digest: 0 }).sort({ createdAt: 1 }).lean<ApiKeyRecord[]>().exec();
  }

  async remove(id: string): Promise<boolean> {
    if (!isValidObjectId(id) || !/^[0-9a-f]{24}$/i.test(id)) return false;
    const res = await this.model.deleteOne({ _id: new Types.ObjectId(id) }).exec();
    return res.deletedCount === 1;
  }
}
