/** A new group (admins and the command line). */
import { GroupPath, TrimmedMax } from './rules';

export const MAX_GROUP_DESCRIPTION = 1000;

export class CreateGroupInput {
  @GroupPath(
    'A group path is lowercase letters, numbers and single underscores, ' +
      'with dots between levels (e.g. games.tabletop)',
  )
  path!: string;
  @TrimmedMax(MAX_GROUP_DESCRIPTION, 'Description') description?: string;
}
