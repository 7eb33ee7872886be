#!/bin/sh
# demo_formats_test.sh ATTNLAB
# attnlab demo masking|scaling on the lecturer's inputs: csv has T*T lines
# per panel, json parses with two panels whose correct rows sum to 1 and
# whose post-softmax rows do not (causal mask), the SVG is well-formed XML
# with a crossed cell per forbidden entry and no entropy for the post-softmax
# rows (they are no distributions); scaling with d_k = 64 has a lower
# entropy and a larger top weight unscaled; a demo without inputs refuses them.
set -u
attnlab=$1
tmp=$(mktemp -d /tmp/attnlab-demo-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "demo_formats_test: $*" >&2; exit 1; }
"$attnlab" demo masking --size 5 --mask causal --seed 4 --format csv > "$tmp/m.csv" || fail "csv failed"
[ "$(wc -l < "$tmp/m.csv")" = 51 ] || fail "csv: expected 1 + 2 x 25 lines, got $(wc -l < "$tmp/m.csv")"
"$attnlab" demo masking --size 5 --mask causal --seed 4 --format json > "$tmp/m.json" || fail "json failed"
"$attnlab" demo masking --size 5 --mask causal --seed 4 --svg "$tmp/m.svg" > /dev/null 2>&1 || fail "svg failed"
"$attnlab" demo scaling --d-k 64 --size 8 --format json > "$tmp/s.json" || fail "scaling json failed"
"$attnlab" demo shift --size 4 > /dev/null 2>&1 && fail "demo shift accepted --size"
/usr/bin/python3 - "$tmp" <<'PY' || fail "the demo outputs are not as expected"
import json, os, sys
import xml.dom.minidom
tmp = sys.argv[1]
m = json.load(open(os.path.join(tmp, "m.json")))
right, wrong = m["panels"]
assert all(abs(s - 1) < 1e-12 for s in right["row_sums"]), right["row_sums"]
assert any(s < 1 - 1e-6 for s in wrong["row_sums"]), wrong["row_sums"]
assert right["forbidden"][0][1] and not right["forbidden"][1][0]
# Entropy is a property of a distribution: none for rows that do not sum to 1.
assert right["mean_entropy"] is not None and right["mean_entropy"] > 0, right["mean_entropy"]
assert wrong["mean_entropy"] is None, wrong["mean_entropy"]
svg = open(os.path.join(tmp, "m.svg"), encoding="utf-8").read()
assert "no entropy (rows do not sum to 1)" in svg and "← queries (rows)" in svg
doc = xml.dom.minidom.parse(os.path.join(tmp, "m.svg"))
crosses = [p for p in doc.getElementsByTagName("path") if p.getAttribute("stroke") == "#b22222"]
assert len(crosses) >= 2 * 10, len(crosses)  # 10 forbidden cells per 5 x 5 causal panel
s = json.load(open(os.path.join(tmp, "s.json")))
scaled, unscaled = s["panels"]
assert s["inputs"]["d_k"] == 64
assert unscaled["mean_entropy"] < scaled["mean_entropy"], (scaled["mean_entropy"], unscaled["mean_entropy"])
assert unscaled["mean_largest_weight"] > scaled["mean_largest_weight"]
print("demo formats ok")
PY
echo "demo_formats_test: ok"
