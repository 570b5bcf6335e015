#!/bin/sh
# Installs Debian's Chromium for the browser test (test/e2e/docs-browser.e2e-spec.ts)
# when it is missing. playwright-core drives it through executablePath; Playwright's
# own browser download is never used. Needs root (CI runs as root; else use sudo).
set -eu
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "chromium present: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "chromium installed: $(/usr/bin/chromium --version 2>/dev/null)" >&2
