/**
 * Shared pieces of the property-based tests: the operations of the OpenAPI
 * document (read from the running app, so new routes are fuzzed without
 * editing the tests), arbitraries for hostile input and the contract's answer
 * format (CONTRACT §1) as an assertion.
 */
import type { Server } from 'node:http';
import fc from 'fast-check';
import request from 'supertest';

/** Every request of a property gets this long; a slower answer counts as a hang. */
export const REQUEST_TIMEOUT_MS = 5000;

/** Runs per property and operation (FUZZ_RUNS raises it for a longer local hunt; FUZZ_SEED replays a failure). */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
export const fcOptions = (numRuns = RUNS): fc.Parameters<unknown> => ({
  numRuns,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
  // A failing run already costs a few requests per shrink step: keep the report quick.
  endOnFailure: false,
  interruptAfterTimeLimit: 120_000,
});

const LOC_ROOTS = ['body', 'query', 'path', 'header', 'form'];
const ERROR_TYPES = [
  'missing',
  'string_type',
  'int_parsing',
  'bool_type',
  'dict_type',
  'list_type',
  'uuid_parsing',
  'enum',
  'string_too_long',
  'string_too_short',
  'too_long',
  'extra_forbidden',
  'json_invalid',
  'value_error',
];

export type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  format?: string;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: boolean | Schema;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  id: string;
  parameters: Parameter[];
  /** Resolved schema of an application/json request body. */
  jsonBody?: Schema;
  /** Resolved schema of a multipart/form-data request body. */
  formBody?: Schema;
  responses: number[];
  secured: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, Schema> };
  security?: unknown[];
}

export async function readOperations(http: Server): Promise<Operation[]> {
  const res = await request(http).get('/docs-json').timeout(REQUEST_TIMEOUT_MS);
  if (res.status !== 200) throw new Error(`/docs-json answered ${res.status}`);
  const doc = res.body as OpenApiDocument;
  const resolve = (schema: Schema | undefined, seen = new Set<string>()): Schema | undefined => {
    if (!schema) return undefined;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      if (seen.has(name)) return {};
      return resolve(doc.components.schemas[name], new Set([...seen, name]));
    }
    if (schema.allOf?.length === 1) return resolve(schema.allOf[0], seen);
    const out: Schema = { ...schema };
    if (schema.properties) {
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v, seen) ?? {}]));
    }
    if (schema.items) out.items = resolve(schema.items, seen);
    if (schema.oneOf) out.oneOf = schema.oneOf.map((s) => resolve(s, seen) ?? {});
    return out;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      const security = op.security ?? doc.security ?? [];
      operations.push({
        method: method as Operation['method'],
        path,
        id: `${method.toUpperCase()} ${path}`,
        parameters: (op.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema) })),
        jsonBody: resolve(content['application/json']?.schema),
        formBody: resolve(content['multipart/form-data']?.schema),
        responses: Object.keys(op.responses).map(Number),
        // `[{}]` marks a public route (health); a named scheme marks a protected one.
        secured: security.some((s) => Object.keys(s as object).length > 0),
      });
    }
  }
  return operations;
}

/** Builds the URL of an operation with raw (already encoded) path segments and query string. */
export function urlFor(op: Operation, pathValues: Record<string, string>, query = ''): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = pathValues[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${op.id}`);
    return value;
  });
  return query ? `${path}?${query}` : path;
}

export interface Sent {
  op: Operation;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Multipart fields and files (used instead of body). */
  form?: { fields: [string, string][]; files: [string, Buffer, string][] };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/** Sends one request; a timeout becomes an error naming the request (the "never a hang" property). */
export async function send(http: Server, sent: Sent): Promise<Answer> {
  let req = request(http)[sent.op.method](sent.url).timeout(REQUEST_TIMEOUT_MS);
  for (const [k, v] of Object.entries(sent.headers ?? {})) req = req.set(k, v);
  if (sent.form) {
    for (const [name, value] of sent.form.fields) req = req.field(name, value);
    for (const [name, data, filename] of sent.form.files) req = req.attach(name, data, filename);
  } else if (sent.body !== undefined) {
    req = req.send(sent.body);
  }
  try {
    const res = await req;
    return { status: res.status, headers: res.headers as Record<string, string>, body: res.body, text: res.text };
  } catch (err) {
    const e = err as { timeout?: number; code?: string; message?: string };
    if (e.timeout || e.code === 'ECONNABORTED') throw new Error(`${describeRequest(sent)}: no answer within ${REQUEST_TIMEOUT_MS} ms`, { cause: err });
    throw new Error(`${describeRequest(sent)}: ${e.code ?? ''} ${e.message ?? String(err)}`, { cause: err });
  }
}

export function describeRequest(sent: Sent): string {
  const body = sent.form ? JSON.stringify(sent.form.fields).slice(0, 300) : typeof sent.body === 'string' ? sent.body.slice(0, 300) : sent.body ? `<${sent.body.length} bytes>` : '';
  return `${sent.op.method.toUpperCase()} ${sent.url.slice(0, 300)} ${JSON.stringify(sent.headers ?? {}).slice(0, 300)} ${body}`;
}

/**
 * The contract's answer format: no 500 ever, other 5xx only where the
 * operation documents them; errors are JSON with a string `detail`, a 422 is a
 * non-empty list of `{loc, msg, type}` items with `loc[0]` a request part and
 * `type` from the contract's set; a 2xx is one the operation documents.
 */
export function assertContractAnswer(sent: Sent, res: Answer, extra: { allow5xx?: number[] } = {}): void {
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${describeRequest(sent)}\n  answer: ${res.status} ${res.text.slice(0, 500)}`);
  };
  if (res.status >= 500) {
    const allowed = (extra.allow5xx ?? sent.op.responses).filter((s) => s !== 500);
    if (!allowed.includes(res.status)) fail(`status ${res.status}`);
  }
  if (res.status >= 200 && res.status < 300) {
    if (!sent.op.responses.includes(res.status)) fail(`undocumented success status ${res.status}`);
    return;
  }
  // A conditional GET may be answered 304 by express's ETag handling.
  if (res.status === 304 && sent.op.method === 'get' && sent.headers?.['If-None-Match'] !== undefined) return;
  if (res.status < 400) fail(`unexpected status ${res.status}`);
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) fail('error answer is not JSON');
  const body = res.body as { detail?: unknown };
  if (!body || typeof body !== 'object' || Array.isArray(body)) fail('error body is not an object');
  if (res.status === 422) {
    const items = body.detail;
    if (!Array.isArray(items) || items.length === 0) fail('422 without validation items');
    for (const item of items as { loc?: unknown; msg?: unknown; type?: unknown }[]) {
      const keys = Object.keys(item ?? {}).sort().join(',');
      if (keys !== 'loc,msg,type') fail(`validation item members ${keys}`);
      if (!Array.isArray(item.loc) || !LOC_ROOTS.includes(item.loc[0] as string)) fail(`validation loc ${JSON.stringify(item.loc)}`);
      if (!(item.loc as unknown[]).every((p) => typeof p === 'string' || typeof p === 'number')) fail(`validation loc ${JSON.stringify(item.loc)}`);
      if (typeof item.msg !== 'string' || item.msg.length === 0) fail('validation msg is not a string');
      if (!ERROR_TYPES.includes(item.type as string)) fail(`validation type ${JSON.stringify(item.type)}`);
    }
    return;
  }
  if (typeof body.detail !== 'string' || body.detail.length === 0) fail('error detail is not a string');
  const members = Object.keys(body).sort().join(',');
  const expected = res.status === 402 ? 'detail,limit,quota,used' : 'detail';
  if (members !== expected) fail(`error body members ${members}`);
  if (res.status === 401 && res.headers['www-authenticate'] !== 'Bearer') fail('401 without WWW-Authenticate: Bearer');
}

// ---------------------------------------------------------------------------
// Arbitraries

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u0007\u001b[31m',
  '💥'.repeat(64),
  'é'.repeat(300),
  '../../../etc/passwd',
  '..\\..\\windows',
  '%00',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '12345678901234567890123',
  'true',
  'null',
  '{}',
  '[]',
];

/** Strings that tend to break things: control characters, lone surrogates, huge, empty. */
export const nastyString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', 'é', '💥', '\u0000', ' '), fc.integer({ min: 100, max: 40_000 })).map(([c, n]) => c.repeat(n)) },
  );

/** Numbers at the edges of JSON and of JavaScript. */
export const nastyNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constantFrom(0, -0, 1, -1, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 0.5, -0.5),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

/** Any JSON value: every kind, nested, with nasty strings and numbers inside. */
export const anyJson = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }) },
    { weight: 2, arbitrary: nastyString() },
    { weight: 2, arbitrary: nastyNumber() },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
    {
      weight: 1,
      arbitrary: fc.letrec<{ v: unknown }>((tie) => ({
        v: fc.oneof(
          { depthSize: 'small', withCrossShrink: true },
          nastyString(),
          nastyNumber(),
          fc.boolean(),
          fc.constant(null),
          fc.array(tie('v'), { maxLength: 4 }),
          fc.dictionary(nastyString(), tie('v'), { maxKeys: 4 }),
        ),
      })).v,
    },
  );

/** JSON text the app's parser accepts but JSON.stringify would never write (and some it rejects). */
export const rawJsonText = (): fc.Arbitrary<string> =>
  fc.oneof(
    anyJson().map((v) => JSON.stringify(v) ?? 'null'),
    fc.constantFrom(
      '-0',
      '1e400',
      '-1e400',
      '12345678901234567890123456789',
      '{"a":1,"a":2}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '"\\u0000"',
      '"\\ud800"',
      '{"name":"\\u0000"}',
      '[' .repeat(5000) + ']'.repeat(5000),
      '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
      // Just under the 1 MB body limit: nesting as deep as a request can carry.
      '['.repeat(500_000) + ']'.repeat(500_000),
      '{"tags":' + '['.repeat(400_000) + ']'.repeat(400_000) + '}',
      '\ufeff{}',
      '  {}  ',
    ),
  );

/** Text that is not JSON at all (sent with a JSON content type it must be 422 json_invalid). */
export const invalidJsonText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('{', '{"a":', '{"a" 1}', "{'a':1}", '[1,]', '{"a":1,}', 'undefined', 'NaN', '{"a":01}', '"unterminated', 'nul', '\u0000', '{"a":"\u0001"}', '{}{}', '{"a":1}}'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  );

/** A value of a different JSON type than the schema asks for (or breaking its bounds). */
export function wrongValue(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const t = schema?.type ?? (schema?.oneOf ? 'object' : schema?.properties ? 'object' : undefined);
  const options: fc.Arbitrary<unknown>[] = [anyJson()];
  if (t === 'string') {
    options.push(nastyNumber(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
    if (schema?.maxLength) options.push(fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 50 }).map((n) => 'x'.repeat(n)));
    if (schema?.enum) options.push(nastyString().filter((s) => !schema.enum!.includes(s)));
    if (schema?.format === 'uuid') options.push(uuidLike());
  } else if (t === 'number' || t === 'integer') {
    options.push(nastyString(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }), fc.double(), fc.constantFrom('5', '1e3', '0x10'));
  } else if (t === 'boolean') {
    options.push(fc.constantFrom('true', 'false', 0, 1, 'yes', null, [], {}));
  } else if (t === 'array') {
    options.push(nastyString(), nastyNumber(), fc.object({ maxDepth: 1 }), fc.constant(null));
    options.push(fc.array(wrongValue(schema?.items), { maxLength: 5 }));
    if (schema?.maxItems) options.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, (_v, i) => `x${i}`)));
  } else if (t === 'object') {
    options.push(nastyString(), nastyNumber(), fc.array(anyJson(), { maxLength: 3 }), fc.constant(null));
    if (schema?.properties) options.push(objectFor(schema));
  }
  return fc.oneof(...options);
}

/** An object with the schema's field names, each holding a wrong (or occasionally fitting) value. */
export function objectFor(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? (schema.oneOf?.[0]?.properties as Record<string, Schema> | undefined) ?? {};
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, fieldSchema] of Object.entries(props)) {
    fields[name] = fc.oneof({ weight: 3, arbitrary: wrongValue(fieldSchema) }, { weight: 1, arbitrary: fittingValue(fieldSchema) });
  }
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.option(fc.dictionary(nastyString(), anyJson(), { maxKeys: 2 }), { freq: 4 }),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
}

/** A value the schema would likely accept (so some runs get past validation into the services). */
export function fittingValue(schema: Schema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return anyJson();
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.oneOf?.length) return fc.oneof(...schema.oneOf.map((s) => fittingValue(s)));
  switch (schema.type ?? '') {
    case 'string':
      if (schema.format === 'uuid') return fc.uuid({ version: 4 });
      return fc.string({ minLength: Math.max(1, schema.minLength ?? 0), maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case 'integer':
    case 'number':
      return fc.integer({ min: Math.ceil(schema.minimum ?? 0), max: Math.floor(Math.min(schema.maximum ?? 1000, 1000)) });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fittingValue(schema.items), { maxLength: 3 });
    case 'object':
      return schema.properties
        ? fc.record(Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, fittingValue(v)])), {
            requiredKeys: schema.required ?? [],
          })
        : fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 3 });
    default:
      return anyJson();
  }
}

/** Strings that look like ids but are not of the expected form. */
export const uuidLike = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.uuid({ version: 4 }).map((u) => u.toUpperCase()),
    fc.uuid().map((u) => u.slice(0, 35)),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.uuid().map((u) => `{${u}}`),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '6f1c2a9e-3b7d-0c55-9a0e-1d2b3c4d5e6f', '6f1c2a9e-3b7d-4c55-ca0e-1d2b3c4d5e6f'),
  );

/**
 * A path segment exactly as it goes on the wire: random strings percent-encoded,
 * plus raw segments that test the router's decoding (`..`, `%00`, bad escapes).
 */
export const pathSegment = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: nastyString().filter((s) => s.length > 0 && s.length < 1000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))) },
    { weight: 2, arbitrary: uuidLike().map(encodeURIComponent) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E',
        '%00',
        '%',
        '%zz',
        '%c3%28',
        '%ff',
        '%2F',
        '..%2F..%2Fetc%2Fpasswd',
        '-1',
        '0',
        '1.5',
        '1e3',
        '0x1f',
        '+1',
        '007',
        '2147483648',
        '99999999999999999999',
        'NaN',
        'null',
        'undefined',
        'true',
        '%20',
        '%E2%80%AE',
        'a;b',
        'a,b',
        "'",
        '~',
        'x'.repeat(8000),
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => encodeURIComponent(String(n))) },
  );

/** A value for a query parameter as it goes on the wire (encoded). */
export const queryValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('', '-1', '0', '1', '200', '201', '1.5', '1e2', '1e400', ' 5', '5 ', '0x10', 'abc', 'null', 'NaN', 'Infinity', '%00', '%', '99999999999999999999', '2147483648', '9007199254740991', '9007199254740993', '-0', '[]', '%5B%5D').map((s) => s),
    fc.integer({ min: -1000, max: 100_000 }).map(String),
    nastyString().filter((s) => s.length < 1000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))),
  );

// ---------------------------------------------------------------------------
// Multipart

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** A multipart/form-data body built by hand, so names and filenames go on the wire exactly as generated. */
export function multipartBody(parts: Part[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Parts of an upload form: the contract's names and others, text and files, with hostile names and values. */
export function uploadPart(): fc.Arbitrary<Part> {
  const partName = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('file', 'files', 'file.0', 'file.1', 'files.0.items', 'files.3.items', 'task_type', 'message', 'task_id', 'folder') },
    { weight: 1, arbitrary: fc.constantFrom('file.x', 'files.0', 'files[]', 'file[0]', 'a[b]', '__proto__', 'constructor', 'FILE', '', 'file\u0000', 'fïle', 'file"x') },
    { weight: 1, arbitrary: nastyString().filter((s) => s.length < 200) },
  );
  const filename = fc.oneof(
    fc.constantFrom('a.txt', 'report.pdf', '../../etc/passwd', '..', '.', '', ' ', 'a\u0000b.txt', 'x'.repeat(1000), 'émoji-💥.png', 'a/b/c.txt', 'C:\\win\\a.txt', '%00.txt', 'a\u202etxt.exe', '<script>.html'),
    nastyString().filter((s) => s.length < 300),
  );
  const data = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.constantFrom(Buffer.from('%PDF-1.4\n'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('<svg onload="alert(1)"/>'), Buffer.alloc(0)),
    nastyString().filter((s) => s.length < 2000).map((s) => Buffer.from(s, 'utf8')),
  );
  const contentType = fc.option(fc.constantFrom('text/plain', 'application/octet-stream', 'image/png', 'text/html', 'garbage', '', 'multipart/mixed'), { freq: 2 });
  return fc.record({
    name: partName,
    filename: fc.option(filename, { freq: 2, nil: undefined }),
    contentType: contentType.map((c) => c ?? undefined),
    data,
  });
}

/** Bodies that are not well-formed multipart (truncated, wrong boundary, binary noise). */
export const malformedMultipart = (boundary: string): fc.Arbitrary<Buffer> =>
  fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
    fc.constantFrom(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc\r\n--${boundary}`,
      `--${boundary}\r\n\r\nno headers\r\n--${boundary}--\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--${boundary}--\r\n`,
      `--${boundary}\r\nContent-Disposition: attachment; name="file"\r\n\r\nx\r\n--${boundary}--\r\n`,
      `--other\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nx\r\n--other--\r\n`,
      `--${boundary}--\r\n`,
      '',
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n`,
    ).map((s) => Buffer.from(s, 'binary')),
    fc.array(uploadPart(), { maxLength: 3 }).chain((parts) =>
      fc.nat({ max: 400 }).map((cut) => {
        const whole = multipartBody(parts, boundary);
        return whole.subarray(0, Math.min(cut, Math.max(0, whole.length - 1)));
      }),
    ),
  );
