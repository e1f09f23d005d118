# shellcheck shell=bash
# The switch view's guest output (bench/guest/view-switch.sh: "NAME NS" a
# line, NAME one of enable, add, add-other-disk, removeall-other-disk,
# disable, repeated SWITCH_CYCLES times) -> runs.csv rows.  Functions only:
# nothing happens on source.
#
#   collect_switch PREFIX FILE   switch_NAME_ns, the median of each NAME,
#                                then switch_enable_first_ns and
#                                switch_disable_first_ns, the boot's first
#                                flip each way (cold caches and all)

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

collect_switch() {
	local prefix=$1 COLLECT_INPUT=$2 name bad
	bad=$(awk 'NF != 2 || $2 !~ /^[0-9]+$/ { printf "line %d: %s", NR, $0; exit }' "$2")
	[[ -z $bad ]] || collect_bad "$2" "not the switch view's output, NAME NS a line ($bad)"
	for name in enable add add-other-disk removeall-other-disk disable; do
		collect_row "$prefix" "switch_${name//-/_}_ns" "$(awk -v n="$name" '$1 == n { print $2 }' "$2" | sort -n |
			awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')"
	done
	for name in enable disable; do
		collect_row "$prefix" "switch_${name}_first_ns" "$(awk -v n="$name" '$1 == n { print $2; exit }' "$2")"
	done
}
