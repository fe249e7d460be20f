#!/bin/sh
# Fetches the OpenAPI 3.1 JSON Schema (2022-10-07) from the PyPI package
# openapi-spec-validator, which ships the OpenAPI Initiative's file, and writes
# openapi-3.1-schema.json and LICENSE-openapi-schema beside this script.
set -eu
version="${1:-0.9.0}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 -m pip download --quiet --no-deps "openapi-spec-validator==$version" -d .
python3 -m zipfile -e openapi_spec_validator-*.whl .
cp openapi_spec_validator/resources/schemas/v3.1/schema.json "$here/openapi-3.1-schema.json"
cp openapi_spec_validator-*.dist-info/licenses/LICENSE "$here/LICENSE-openapi-schema"
