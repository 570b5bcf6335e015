import * as fs from 'node:fs';
import { pgliteTemplateFile } from './databases';

export default async function globalTeardown(): Promise<void> {
  fs.rmSync(pgliteTemplateFile(), { force: true });
}
