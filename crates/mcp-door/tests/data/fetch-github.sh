#!/bin/sh
# Fetches GitHub's REST API description from the npm package @octokit/openapi
# and writes api.github.com.json.gz and LICENSE-octokit-openapi beside this script.
set -eu
version="${1:-23.0.2}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack "@octokit/openapi@$version" >/dev/null
tar xzf octokit-openapi-*.tgz package/generated/api.github.com.json package/LICENSE
gzip -9 -n -c package/generated/api.github.com.json >"$here/api.github.com.json.gz"
cp package/LICENSE "$here/LICENSE-octokit-openapi"
