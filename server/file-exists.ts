/** Whether a path can be reached (`access`): a probe for optional files in a model folder. */
import { access } from 'node:fs/promises';

export async function fileExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
