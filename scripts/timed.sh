#!/bin/sh
# timed.sh NAME COMMAND [ARG...]: run COMMAND, then say how long it took,
# so that make check's log shows where its time went (docs/TESTING.md).
name=$1
shift
start=$(date +%s)
"$@"
rc=$?
echo "=== make check: $name took $(($(date +%s) - start)) s (exit $rc)"
exit $rc
