export { FileResolver } from './file.resolver';
