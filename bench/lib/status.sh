# shellcheck shell=bash disable=SC2034 # the names are for the scripts that source this
# The exit statuses every command of the suite uses, by name, and their
# table for people (docs/exit-status.md and README carry it; the host test
# tests/host/exit-status.sh checks both against status_table).  Sourcing
# this file only defines them.
#
# A command with several outcomes exits with the first of bad input,
# setup, failed, timeout that applies.

STATUS_OK=0
STATUS_FAILED=1
STATUS_BAD_INPUT=2
STATUS_TIMEOUT=3
STATUS_SETUP=4

# status_table: the statuses as a Markdown table (status, name, meaning).
status_table() {
	cat <<'EOF'
| status | name | meaning |
|---|---|---|
| 0 | ok | done; for a gate (compare, compare-series): no regression |
| 1 | failed | a regression, a failed test, a boot that failed (the guest script failed, a kernel panic or report, the guest died), a build that failed, a side of a comparison that could not be measured; always after writing what there is, with the log tail |
| 2 | bad input | usage, settings or names, files that do not fit (a job file, pieces to merge, runs to compare, a LAVA result): nothing was done; and a gate's "no verdict" (the data cannot decide) |
| 3 | timeout | a hung boot or a guest past its limit, and nothing else failed |
| 4 | setup | the machine lacks something: a package or binary, a kernel build that a boot or a pack needs, the source tarball, KVM asked for and not there, root for apt |
EOF
}
