# The rows of one fio JSON result, "PREFIX,METRIC,VALUE" a line: jq -r
# --arg p PREFIX --arg icount 1|"" -f fio-rows.jq FIO.json.  bench.sh runs
# it on the host; a LAVA job's guest (bench/lab/lava-guest.sh) runs the same
# filter.  Under icount guest time is instructions, so the time per I/O
# inside fio's job is the instructions per I/O (fio's own start and exit
# left out).
.jobs[0] as $j | $j.read.clat_ns.percentile as $pc |
"\($p),iops,\($j.read.iops)",
"\($p),lat_ns,\($j.read.clat_ns.mean)",
"\($p),lat_p50_ns,\($pc["50.000000"])",
"\($p),lat_p99_ns,\($pc["99.000000"])",
"\($p),lat_p999_ns,\($pc["99.900000"])",
"\($p),io_errors,\($j.total_err)",
(if $icount == "1" then "\($p),insns_per_io,\(1e9 / $j.read.iops)" else empty end)
