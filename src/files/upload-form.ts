import { ValidationFailed, ValidationItem } from '../common/errors/errors';

/** `file`, `files`, `file.<n>`, `files.<n>.items`: the part names a file may come under (CONTRACT §5). */
export const FILE_PART_NAME = /^(?:files?|file\.\d+|files\.\d+\.items)$/;

const TEXT_PARTS = { task_type: 64, message: Infinity, task_id: 128, folder: 255 } as const;
type TextPart = keyof typeof TEXT_PARTS;

export interface UploadFields {
  message: string;
  taskType: string | null;
  taskId: string | null;
  folder: string | null;
}

/**
 * Validates the text parts of an upload and the names of its file parts, and
 * reports every problem at once (422 items with `loc: ["form", <part>]`).
 * `body` is multer's: a string per part, an array for a repeated part, an
 * object for a bracketed name (`a[b]`).
 */
export function parseUploadForm(body: Record<string, unknown>, fileFieldNames: string[]): UploadFields {
  const items: ValidationItem[] = [];
  const text: Partial<Record<TextPart, string>> = {};

  for (const [name, value] of Object.entries(body)) {
    if (FILE_PART_NAME.test(name)) {
      // A browser sends an empty text value for a file input left empty: ignore those.
      const values = Array.isArray(value) ? (value as unknown[]) : [value];
      if (values.some((v) => v !== '')) items.push({ loc: ['form', name], msg: 'Value error, expected a file', type: 'value_error' });
      continue;
    }
    if (!Object.hasOwn(TEXT_PARTS, name)) {
      items.push({ loc: ['form', name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    const part = name as TextPart;
    if (typeof value !== 'string') {
      items.push({ loc: ['form', part], msg: 'Input should be a valid string (sent once)', type: 'string_type' });
      continue;
    }
    const max = TEXT_PARTS[part];
    if ([...value].length > max) {
      items.push({ loc: ['form', part], msg: `String should have at most ${max} characters`, type: 'string_too_long' });
      continue;
    }
    if (part === 'folder') {
      const problem = folderProblem(value);
      if (problem) {
        items.push({ loc: ['form', 'folder'], msg: `Value error, ${problem}`, type: 'value_error' });
        continue;
      }
    }
    text[part] = value;
  }

  const unknownFileParts = [...new Set(fileFieldNames.filter((name) => !FILE_PART_NAME.test(name)))];
  for (const name of unknownFileParts) {
    items.push({ loc: ['form', name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  }
  if (!fileFieldNames.some((name) => FILE_PART_NAME.test(name))) {
    items.push({ loc: ['form', 'file'], msg: 'Field required', type: 'missing' });
  }
  if (items.length > 0) throw new ValidationFailed(items);

  return {
    message: text.message ?? '',
    // An empty value (a form's blank input) means "not sent".
    taskType: text.task_type || null,
    taskId: text.task_id || null,
    folder: text.folder ? text.folder.replace(/\/+$/, '') : null,
  };
}

/** Why `folder` is not a safe relative path inside the user's share, or undefined if it is. */
export function folderProblem(folder: string): string | undefined {
  if (folder === '') return undefined;
  if (folder.startsWith('/')) return 'folder must be a relative path (no leading "/")';
  if (folder.includes('\\')) return 'folder must use "/" as separator (no backslash)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(folder)) return 'folder must not contain control characters';
  const segments = folder.replace(/\/+$/, '').split('/');
  if (segments.includes('..')) return 'folder must not contain a ".." segment';
  if (segments.some((s) => s === '' || s === '.')) return 'folder must not contain empty or "." segments';
  return undefined;
}

/**
 * The name to keep for an uploaded file: the client's name without any
 * directory part or control characters, at most 255 characters. It is only
 * ever displayed and sent back; storage uses the file's id.
 */
export function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = [...base.replace(/[\u0000-\u001f\u007f]/g, '').trim()].slice(0, 255).join('');
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}
