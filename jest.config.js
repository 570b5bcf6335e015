/**
 * Jest runs the TypeScript sources through SWC (CommonJS). NestJS 12 and a few
 * other dependencies ship only ES modules, so SWC transforms those too.
 * PGlite loads its WebAssembly with a dynamic import(): hence
 * --experimental-vm-modules in the `test` script.
 */
const esmOnly = ['@nestjs', '@apidevtools',  'file-type', 'strtok3', 'token-types', 'peek-readable', '@tokenizer', 'uint8array-extras', 'nestjs-pino', 'nestjs-cls', '@borewit'];

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

/**
 * The docs browser test needs Debian's Chromium. CI (CI=true) always runs it
 * (.ci/run installs the browser, and the test fails if it is missing); a
 * developer machine without a browser leaves it out, with a notice, so that
 * `npm install && npm test` works where only Node is installed.
 */
const fs = require('node:fs');
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const withoutBrowser = process.env.CI !== 'true' && !fs.existsSync(chromium);
if (withoutBrowser) {
  process.stderr.write(`note: ${chromium} not found: test/e2e/docs-browser.e2e-spec.ts left out (sh scripts/install-chromium.sh adds it)\n`);
}

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/resilience/**/*.resilience-spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(withoutBrowser ? ['/test/e2e/docs-browser\\.e2e-spec\\.ts$'] : [])],
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/setup/after-each-file.ts'],
  // Generous: app start-up (an in-memory PGlite per spec file) slows down a lot on a loaded 2-core machine.
  testTimeout: 60000,
  maxWorkers: 2,
};
