#!/usr/bin/env bash
# The commit rule of CONTRIBUTING.md, checked from the commit that adopted it: a subject under 72 characters
# and a body saying why (merge commits excepted). Older commits are history and are not rewritten.
# Skips (exit 0) where there is no history to read: a tarball, or a shallow clone without the start commit.
set -euo pipefail
cd "$(dirname "$0")/.."
start=9b86c4d  # the last commit before the check; every commit after it follows the rule
if ! git rev-parse --git-dir >/dev/null 2>&1 || ! git cat-file -e "$start^{commit}" 2>/dev/null; then
    echo "check_commits: no history from $start here; not checked"
    exit 0
fi
bad=0
while IFS= read -r commit; do
    subject=$(git log -1 --format=%s "$commit")
    body=$(git log -1 --format=%b "$commit" | grep -v '^\s*$' || true)
    if ((${#subject} >= 72)); then
        echo "check_commits: ${commit:0:10} subject is ${#subject} characters (under 72): $subject" >&2
        bad=1
    fi
    if [ -z "$body" ]; then
        echo "check_commits: ${commit:0:10} has no body saying why: $subject" >&2
        bad=1
    fi
done < <(git rev-list --no-merges "$start..HEAD")
exit $bad
