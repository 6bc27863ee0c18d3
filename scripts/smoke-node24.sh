#!/usr/bin/env bash
# Runs the committed bundle under Node 24 (what GitHub uses for `runs.using: node24`):
# the CLI, and the action's main and post entry points in plan mode on a pull_request event.
set -euo pipefail
cd "$(dirname "$0")/.."
node24="$(bash scripts/node24.sh)"
echo "smoke: $("$node24" --version)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$node24" dist/cli.js --help >/dev/null
"$node24" dist/cli.js select --versions 1.0.0,1.1.0-dev.1,1.0.1 --prereleases | grep -qx '1.1.0-dev.1'
"$node24" dist/cli.js plan --repo examples/tce-packages --all --json >"$work/plan.json"
grep -q '"devPackageName"' "$work/plan.json"

# The action as the runner starts it: INPUT_* and GITHUB_* variables and an event file.
cp -r examples/tce-packages "$work/repo"
git -C "$work/repo" init -q -b main
git -C "$work/repo" -c user.name=smoke -c user.email=smoke@devpkg.invalid add -A
git -C "$work/repo" -c user.name=smoke -c user.email=smoke@devpkg.invalid commit -qm base
base="$(git -C "$work/repo" rev-parse HEAD)"
echo '#! changed' >>"$work/repo/addons/packages/antrea/1.5.3/bundle/config/values.yaml"
git -C "$work/repo" -c user.name=smoke -c user.email=smoke@devpkg.invalid commit -qam change
head="$(git -C "$work/repo" rev-parse HEAD)"
printf '{"number":7,"pull_request":{"number":7,"base":{"sha":"%s"},"head":{"sha":"%s"}}}' "$base" "$head" >"$work/event.json"
: >"$work/output" ; : >"$work/state" ; : >"$work/summary"
env INPUT_MODE=plan INPUT_COMMENT=false INPUT_PACKAGES-DIR=addons/packages INPUT_ARTIFACT-NAME=devpkg-results \
  INPUT_REF-NAME=antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com \
  GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$work/event.json" GITHUB_WORKSPACE="$work/repo" \
  GITHUB_REPOSITORY=example/packages GITHUB_RUN_ID=1 GITHUB_RUN_NUMBER=5 GITHUB_RUN_ATTEMPT=1 \
  GITHUB_OUTPUT="$work/output" GITHUB_STATE="$work/state" GITHUB_STEP_SUMMARY="$work/summary" RUNNER_TEMP="$work" \
  "$node24" dist/index.js
grep -q 'antrea/1.5.3' "$work/output"
grep -q 'antrea.tanzu.vmware.com' "$work/summary"
env GITHUB_STATE="$work/state" "$node24" dist/post.js
echo "smoke: ok (cli, action main and post under $("$node24" --version))"
