#!/usr/bin/env bash
# The README's test command: installs what the tests need, runs the lint and type checks, then the test
# suite. Extra arguments go to pytest (e.g. `bash scripts/test.sh tests/shoe`); with none, the whole suite
# runs on two workers (pytest-xdist), in a new random order each run (pytest-randomly; -p no:randomly for
# file order, --randomly-seed=N to repeat an order).
#
# Environment:
#   STUDIO_LINT=strict  a lint or type finding fails the run (the default)
#   STUDIO_LINT=report  findings are printed and the tests run anyway
#   STUDIO_LINT=skip    no lint or type check (a quick test run)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

lint_mode="${STUDIO_LINT:-strict}"
case "$lint_mode" in
    strict | report | skip) ;;
    *) echo "test: STUDIO_LINT must be strict, report or skip, not '$lint_mode'" >&2; exit 2 ;;
esac
if [ "$lint_mode" != skip ]; then
    findings=()
    .venv/bin/ruff check . || findings+=("ruff check")
    .venv/bin/ruff format --check . || findings+=("ruff format --check")
    .venv/bin/mypy || findings+=("mypy")  # what it checks: [tool.mypy] files in pyproject.toml
    bash scripts/check_commits.sh || findings+=("commit messages")
    if ((${#findings[@]})); then
        if [ "$lint_mode" = strict ]; then
            echo "test: findings from: ${findings[*]}" >&2
            exit 1
        fi
        echo "test: findings from: ${findings[*]} (reported only: STUDIO_LINT=strict makes them fail)" >&2
    fi
fi

# the console tests' screenshots (a folder git ignores)
export STUDIO_TEST_ARTIFACTS="${STUDIO_TEST_ARTIFACTS:-$PWD/test-artifacts}"
if (($# == 0)); then
    # the slowest tests are listed at the end, so that what makes the suite long is seen in every CI log
    set -- -n 2 --durations=25
fi
# pytest's exit status is the script's: 1 a test failed, 2-4 an error, 5 no test was collected (all fail CI)
exec .venv/bin/python -m pytest "$@"
