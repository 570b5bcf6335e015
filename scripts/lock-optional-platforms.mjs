#!/usr/bin/env node
// The npm registry reachable here does not serve every platform's optional
// binary (e.g. @swc/core-darwin-arm64 answers 404), so `npm install` leaves
// them out of package-lock.json and `npm ci` then calls the lock out of sync.
// This records each missing optional dependency as the platform-restricted
// entry npm would have written (os/cpu/libc from its name), which `npm ci`
// skips on other platforms. Run after `npm install`: node scripts/lock-optional-platforms.mjs
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = { arm64: 'arm64', aarch64: 'arm64', x64: 'x64', ia32: 'ia32', arm: 'arm', gnueabihf: 'arm', musleabihf: 'arm', ppc64: 'ppc64', ppc64le: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64', wasm32: 'wasm32', mips64el: 'mips64el' };

function platformOf(name) {
  const tokens = name.split('/').pop().split(/[-_]/);
  const entry = {};
  const os = tokens.find((t) => OS.includes(t));
  if (os) entry.os = [os];
  const cpu = tokens.map((t) => CPU[t]).find(Boolean);
  if (cpu) entry.cpu = [cpu];
  if (os === 'linux' || !os) {
    if (tokens.some((t) => t.includes('musl'))) entry.libc = ['musl'];
    else if (tokens.some((t) => t.includes('gnu'))) entry.libc = ['glibc'];
  }
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[base] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform.os && !platform.cpu) continue; // not a platform binary: leave it to npm
    packages[hoisted] = { version: range.replace(/^[\^~=]/, ''), optional: true, ...platform };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`recorded ${added} platform-specific optional packages`);
