#!/usr/bin/env bash
# Lints the GitHub workflows (.github/workflows, examples/workflows) and .github/dependabot.yml
# with actionlint and zizmor, both pinned, and fails on any actionlint finding and on any zizmor
# finding of medium severity or higher.
#
#   scripts/lint-workflows.sh          (npm run lint:workflows)
#
# The tools are built once into ${DEVPKG_CACHE:-$HOME/.cache/devpkg}/build (as the test harness
# does): actionlint with `go install` from its Go module (checked against go.sum's checksum
# database), zizmor with pip into a venv from PyPI, by version and wheel sha256 (--require-hashes).
# Needs go and python3 on PATH. zizmor runs --offline: its online audits need a GitHub token.
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.32.0
# The zizmor wheels' sha256 (PyPI), one per platform this may run on.
ZIZMOR_HASHES=(
  84a6acb975accc13408786a2bd274b572537ca19c933ebbc13e78f3988562071 # manylinux_2_28_x86_64
  0a999c98015becd9f69919ce01febadfb1c2be9b8ec2ce9ef7eb13ff23ba8eba # macosx_11_0_arm64
  aa4b4e216321dd5cf202cd79fc83296468f0eed79d850cd65ac8187a6bbc5496 # macosx_10_12_x86_64
)

DEVPKG_CACHE="${DEVPKG_CACHE:-$HOME/.cache/devpkg}"
log() { printf '[lint-workflows] %s\n' "$*" >&2; }
die() { printf '[lint-workflows] ERROR: %s\n' "$*" >&2; exit 1; }

actionlint_dir="$DEVPKG_CACHE/build/actionlint-$ACTIONLINT_VERSION"
actionlint="$actionlint_dir/bin/actionlint"
if [ ! -x "$actionlint" ]; then
  command -v go >/dev/null 2>&1 || die "go is not on PATH: actionlint $ACTIONLINT_VERSION is built from its Go module (install Go, https://go.dev/dl/)"
  log "building actionlint $ACTIONLINT_VERSION into $actionlint_dir"
  rm -rf "$actionlint_dir.tmp"
  GOBIN="$actionlint_dir.tmp/bin" GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOWORK=off \
    go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" || die "go install github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION failed"
  rm -rf "$actionlint_dir" && mv "$actionlint_dir.tmp" "$actionlint_dir"
fi

zizmor_dir="$DEVPKG_CACHE/build/zizmor-$ZIZMOR_VERSION"
zizmor="$zizmor_dir/bin/zizmor"
if [ ! -x "$zizmor" ]; then
  command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH: zizmor $ZIZMOR_VERSION is installed from PyPI into a venv"
  log "installing zizmor $ZIZMOR_VERSION into $zizmor_dir"
  # A venv's scripts name their interpreter by absolute path, so it is made in place; a failed
  # install removes it (the check above looks for the zizmor script).
  rm -rf "$zizmor_dir"
  python3 -m venv "$zizmor_dir" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  req="$zizmor_dir/requirements.txt"
  { printf 'zizmor==%s' "$ZIZMOR_VERSION"; printf ' --hash=sha256:%s' "${ZIZMOR_HASHES[@]}"; printf '\n'; } > "$req"
  "$zizmor_dir/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$req" \
    || { rm -rf "$zizmor_dir"; die "pip install zizmor==$ZIZMOR_VERSION failed (no wheel with a listed sha256 for this platform?)"; }
fi

# The examples are templates: users replace `<sha>` with the devpkg commit they reviewed. They
# are linted with a commit-shaped stand-in there, so that the pin audits see what users commit.
examples=$(mktemp -d "${TMPDIR:-/tmp}/devpkg-lint-examples.XXXXXX")
trap 'rm -rf "$examples"' EXIT
for f in examples/workflows/*.yml; do
  sed 's/<sha>/0123456789abcdef0123456789abcdef01234567/g' "$f" > "$examples/${f##*/}"
done
workflows=(.github/workflows/*.yml "$examples"/*.yml)

status=0
log "actionlint $ACTIONLINT_VERSION: .github/workflows and examples/workflows (as $examples)"
# actionlint runs shellcheck on run: scripts when shellcheck is on PATH.
"$actionlint" -no-color -config-file .github/actionlint.yaml "${workflows[@]}" || status=1
log "zizmor $ZIZMOR_VERSION (--min-severity medium): the same files and .github/dependabot.yml"
"$zizmor" --offline --no-progress --min-severity medium "${workflows[@]}" .github/dependabot.yml || status=1
if [ $status = 0 ]; then log "clean"; else log "findings above (examples/workflows/X.yml appears as $examples/X.yml): fix them, or, for a justified exception, add '# zizmor: ignore[<audit>]' with the reason"; fi
exit $status
