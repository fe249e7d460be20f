#!/usr/bin/env bash
# Every publishable crate's library, checked on its own with no default
# feature and then with each feature alone, the way an embedder who takes
# one crate and one feature builds it (cargo-hack's --each-feature, as a
# loop over `cargo metadata`, so nothing has to be installed from
# crates.io). A feature that only compiles because another one is on, or
# because a sibling crate in the workspace turned it on, fails here.
#
# Needs: cargo, python3, and for `native-tls` the OpenSSL headers
# (Debian's libssl-dev, installed with apt-get when missing).
# Time: about five minutes on two cores with a warm target folder.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pkg-config --exists openssl 2>/dev/null; then
    echo "each-feature: installing libssl-dev (Debian package, for native-tls)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev pkg-config >/dev/null
fi

# "crate feature" lines: one per feature of each publishable crate, and
# one "crate -" line for no feature at all. `default` is what the
# workspace's own build checks already.
plan="$(cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
meta = json.load(sys.stdin)
for package in meta["packages"]:
    if package.get("publish") == []:
        continue
    print(package["name"], "-")
    for feature in sorted(package["features"]):
        if feature != "default":
            print(package["name"], feature)
')"

# A warning fails the check too: an unused import under one feature is
# noise in every embedder's build.
checked=0
failed=()
while read -r crate feature; do
    args=(-p "$crate" --lib --no-default-features)
    if [ "$feature" = "-" ]; then
        echo "each-feature: $crate, no feature"
    else
        echo "each-feature: $crate, feature $feature alone"
        args+=(--features "$feature")
    fi
    if ! out="$(cargo check --quiet --message-format short "${args[@]}" 2>&1)" \
        || grep -q 'warning' <<<"$out"; then
        printf '%s\n' "$out"
        failed+=("$crate ($feature)")
    fi
    checked=$((checked + 1))
done <<<"$plan"
echo "each-feature: $checked configurations checked, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'each-feature: fails: %s\n' "${failed[@]}" >&2
    exit 1
fi
