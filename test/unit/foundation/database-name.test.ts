import { withDatabaseName } from '../../../src/server';

describe('withDatabaseName', () => {
  it.each([
    ['mongodb://127.0.0.1:27017', 'mongodb://127.0.0.1:27017/agora'],
    ['mongodb://127.0.0.1:27017/', 'mongodb://127.0.0.1:27017/agora'],
    ['mongodb://u:p@h1,h2/?replicaSet=rs', 'mongodb://u:p@h1,h2/agora?replicaSet=rs'],
    ['mongodb://h/mine', 'mongodb://h/mine'],
    ['mongodb+srv://cluster.example.net/x?retryWrites=true', 'mongodb+srv://cluster.example.net/x?retryWrites=true'],
  ])('%s → %s', (uri, expected) => {
    expect(withDatabaseName(uri, 'agora')).toBe(expected);
  });
});
