#!/bin/sh
# demo_formats_test.sh ATTNLAB
# Every demonstration with panels (masking, scaling, shift, weights) in
# every format, on random inputs and on the text's own example, and the
# scaling-sweep: csv has a line per entry with the panel named, json parses
# with the panels' keys, the SVG is well-formed XML with a cell per entry,
# row and column indices, a crossed cell per forbidden entry and the
# forbidden legend only when a cell is forbidden; --font-scale scales the
# labels. The numbers are checked against what the definitions give
# (computed here in Python, or printed in the text), not against attnlab.
set -u
attnlab=$1
tmp=$(mktemp -d /tmp/attnlab-demo-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "demo_formats_test: $*" >&2; exit 1; }
for demo in masking scaling shift weights; do
  for mask in causal none; do
    base="$tmp/$demo-$mask"
    m="--mask $mask"
    [ "$demo" = scaling ] && m=""  # its panels are unmasked: --mask is refused (below)
    "$attnlab" demo $demo --size 5 $m --d-k 16 --seed 4 --format csv > "$base.csv" || fail "$demo csv failed"
    "$attnlab" demo $demo --size 5 $m --d-k 16 --seed 4 --format json > "$base.json" || fail "$demo json failed"
    "$attnlab" demo $demo --size 5 $m --d-k 16 --seed 4 --svg "$base.svg" > "$base.txt" 2>/dev/null ||
      fail "$demo svg failed"
  done
  "$attnlab" demo $demo --example text --format json > "$tmp/$demo-text.json" || fail "$demo text json failed"
  "$attnlab" demo $demo --example text --format csv > "$tmp/$demo-text.csv" || fail "$demo text csv failed"
  "$attnlab" demo $demo --example text --svg "$tmp/$demo-text.svg" > "$tmp/$demo-text.txt" 2>/dev/null ||
    fail "$demo text svg failed"
  "$attnlab" demo $demo > "$tmp/$demo-plain.txt" || fail "attnlab demo $demo failed"
done
for demo in masking shift weights; do
  "$attnlab" demo $demo --size 6 --mask padding --seed 4 --format json > "$tmp/$demo-padding.json" ||
    fail "$demo padding json failed"
  "$attnlab" demo $demo --size 6 --mask padding --seed 4 > "$tmp/$demo-padding.txt" || fail "$demo padding text failed"
done
"$attnlab" demo masking --size 5 --mask causal --seed 4 --font-scale 2 --svg "$tmp/big.svg" > /dev/null 2>&1 ||
  fail "--font-scale 2 failed"
"$attnlab" demo masking --font-scale 9 > /dev/null 2>&1 && fail "--font-scale 9 accepted"
"$attnlab" demo masking --font-scale nan --svg "$tmp/nan.svg" > /dev/null 2>&1 && fail "--font-scale nan accepted"
[ ! -e "$tmp/nan.svg" ] || fail "--font-scale nan wrote a figure"
"$attnlab" demo scaling-sweep --seeds 3 --size 8 --format csv > "$tmp/sweep.csv" || fail "sweep csv failed"
"$attnlab" demo scaling-sweep --seeds 3 --size 8 --format json --svg "$tmp/sweep.svg" > "$tmp/sweep.json" 2>/dev/null ||
  fail "sweep json/svg failed"
"$attnlab" demo scaling-sweep > "$tmp/sweep.txt" || fail "sweep text failed"
"$attnlab" demo > "$tmp/list.txt" || fail "the list failed"
"$attnlab" demo scaling --size 12 > "$tmp/scaling-12.txt" || fail "scaling --size 12 failed"
"$attnlab" demo scaling-sweep --seeds 1 --size 4 --svg "$tmp/sweep-1.svg" > "$tmp/sweep-1.txt" 2>/dev/null ||
  fail "sweep --seeds 1 failed"
# An input a demonstration does not read is refused (exit 2, naming it), never
# ignored in silence: a lecturer who asks for --mask on the sweep must not
# believe the figure is masked.
refused() {
  opt=$1; shift
  "$attnlab" demo "$@" > /dev/null 2> "$tmp/refused.txt"
  code=$?
  [ "$code" = 2 ] || fail "attnlab demo $* exited $code, not 2"
  grep -q "does not read $opt" "$tmp/refused.txt" || fail "attnlab demo $* does not name $opt: $(cat "$tmp/refused.txt")"
}
refused --mask scaling-sweep --mask causal
refused --d-k scaling-sweep --d-k 8
refused --example scaling-sweep --example text
refused --mask scaling --mask none
refused --size masking --example text --size 4
refused --seeds masking --seeds 3
/usr/bin/python3 - "$tmp" <<'PY' || fail "the demo outputs are not as expected"
import csv, json, math, os, sys
import xml.dom.minidom
tmp = sys.argv[1]
def path(name): return os.path.join(tmp, name)
keys = {"masking": ["correct", "post_softmax"], "scaling": ["scaled", "unscaled"],
        "shift": ["definition", "stable"], "weights": ["weights", "contributions"]}

def svg_checks(name, rows, cols, forbidden_cells, nan_legend=None):
    doc = xml.dom.minidom.parse(path(name))
    by_class = lambda tag, c: [e for e in doc.getElementsByTagName(tag) if e.getAttribute("class") == c]
    assert len(by_class("rect", "cell")) == 2 * rows * cols, (name, len(by_class("rect", "cell")))
    assert len(by_class("text", "col-index")) == 2 * cols, name
    assert len(by_class("text", "row-index")) == 2 * rows, name
    assert [t.firstChild.data for t in by_class("text", "col-index")[:cols]] == [str(j) for j in range(cols)]
    assert len(by_class("path", "forbidden")) == 2 * forbidden_cells, (name, len(by_class("path", "forbidden")))
    # The forbidden legend only where a cell is forbidden.
    assert (len(by_class("g", "legend-forbidden")) == 1) == (forbidden_cells > 0), name
    if nan_legend is not None:
        assert (len(by_class("g", "legend-nan")) == 1) == nan_legend, name
    assert [g.getAttribute("data-key") for g in by_class("g", "panel")] == keys[name.split("-")[0]], name
    return doc

for demo, panel_keys in keys.items():
    for mask in ["causal", "none"]:
        base = f"{demo}-{mask}"
        rows = list(csv.DictReader(open(path(base + ".csv"))))
        assert len(rows) == 2 * 25, (base, len(rows))
        assert [r["panel"] for r in rows[::25]] == panel_keys, base
        j = json.load(open(path(base + ".json")))
        assert j["demo"] == demo and j["example"] == "random"
        assert [p["key"] for p in j["panels"]] == panel_keys
        masked = mask == "causal" and demo != "scaling"  # scaling has no mask
        forbidden = 10 if masked else 0  # a 5 x 5 causal mask forbids 10 cells
        for p in j["panels"]:
            assert sum(sum(r) for r in p["forbidden"]) == forbidden, (base, p["key"])
        svg_checks(base + ".svg", 5, 5, forbidden, nan_legend=(demo == "shift"))
        A = {p["key"]: p for p in j["panels"]}
        # csv and json hold the same weights.
        for r in rows:
            w = A[r["panel"]]["weights"][int(r["row"])][int(r["col"])]
            assert (w is None and r["weight"] == "nan") or float(r["weight"]) == w, r
        if demo == "masking":
            assert all(abs(s - 1) < 1e-12 for s in A["correct"]["row_sums"])
            assert (min(A["post_softmax"]["row_sums"]) < 1 - 1e-6) == masked
            assert A["post_softmax"]["mean_entropy"] is None if masked else A["post_softmax"]["mean_entropy"] > 0
        if demo == "shift":
            # exp(s + 1000) overflows: every allowed weight of the definition is inf / inf = NaN.
            d = A["definition"]
            assert all(w is None for i, row in enumerate(d["weights"]) for k, w in enumerate(row)
                       if not d["forbidden"][i][k]), base
            assert d["mean_entropy"] is None
            assert all(abs(s - 1) < 1e-12 for s in A["stable"]["row_sums"])
        if demo == "weights":
            W, C = A["weights"]["weights"], A["contributions"]["weights"]
            assert all(abs(s - 1) < 1e-12 for s in A["contributions"]["row_sums"])
            # Values of unequal lengths: the shares are not the weights.
            assert max(abs(a - c) for rw, rc in zip(W, C) for a, c in zip(rw, rc)) > 0.05, base
        if demo == "scaling":
            assert A["unscaled"]["mean_entropy"] < A["scaled"]["mean_entropy"]
            assert A["unscaled"]["mean_largest_weight"] > A["scaled"]["mean_largest_weight"]

# The text's own examples, against the text's printed numbers or the definitions.
close = lambda a, b, tol: all(abs(x - y) <= tol for x, y in zip(a, b))
t = {p["key"]: p["weights"] for p in json.load(open(path("masking-text.json")))["panels"]}
# The entropy reference is the largest mean row entropy the panel's mask allows:
# the mean over rows of log(number of allowed keys), by hand here. A 5 x 5
# causal mask: row i sees i + 1 keys; no mask: 5 keys; a 6-key padding mask
# keeps 6 - 6 // 3 = 4 keys in every row; the text's 2 x 2 causal example: 1 and 2.
by_mask = {"causal": sum(math.log(i + 1) for i in range(5)) / 5, "none": math.log(5),
           "padding": math.log(4), "text": (math.log(1) + math.log(2)) / 2}
for demo in ["masking", "shift", "weights"]:
    for mask in ["causal", "none"]:
        base = f"{demo}-{mask}"
        ref = by_mask[mask]
        for p in json.load(open(path(base + ".json")))["panels"]:
            assert abs(p["uniform_entropy"] - ref) < 1e-12, (base, p["key"], p["uniform_entropy"], ref)
            e = p["mean_entropy"]
            assert e is None or e <= ref + 1e-12, (base, p["key"], e, ref)
        txt = open(path(base + ".txt")).read()
        assert "uniform over the allowed keys: %.3f)" % ref in txt, (base, ref, txt)
        assert "uniform: " not in txt, base
        svg = open(path(base + ".svg")).read()
        assert "(uniform %.2f)" % ref in svg, (base, ref)
    for p in json.load(open(path(demo + "-padding.json")))["panels"]:
        assert abs(p["uniform_entropy"] - by_mask["padding"]) < 1e-12, (demo, p)
    assert "uniform over the allowed keys: 1.386)" in open(path(demo + "-padding.txt")).read(), demo
for p in json.load(open(path("scaling-none.json")))["panels"]:
    assert abs(p["uniform_entropy"] - math.log(5)) < 1e-12, p  # unmasked
for p in json.load(open(path("masking-text.json")))["panels"]:
    assert abs(p["uniform_entropy"] - by_mask["text"]) < 1e-12, p
assert "uniform over the allowed keys: 0.347)" in open(path("masking-text.txt")).read()
# attnlab demo masking (T = 6, causal): mean log(i + 1) = log(720) / 6 = 1.097, not log 6 = 1.792.
assert "uniform over the allowed keys: 1.097)" in open(path("masking-plain.txt")).read()

assert close(t["correct"][0] + t["correct"][1], [1, 0, 0.6698, 0.3302], 1e-4), t  # 32.2.6, masked
assert close(t["post_softmax"][0] + t["post_softmax"][1], [0.3302, 0, 0.6698, 0.3302], 1e-4), t  # F4
svg_checks("masking-text.svg", 2, 2, 1)
t = {p["key"]: p["weights"] for p in json.load(open(path("scaling-text.json")))["panels"]}
for r, factor in enumerate([1, 4, 16]):
    dots = [factor * 1, factor * 1, factor * 2]  # query [1,1] x factor against [1,0], [0,1], [1,1]
    for key, scale in [("scaled", 1 / math.sqrt(2)), ("unscaled", 1)]:
        e = [math.exp(scale * (d - max(dots))) for d in dots]
        assert close(t[key][r], [x / sum(e) for x in e], 1e-12), (key, r)
svg_checks("scaling-text.svg", 3, 3, 0)
t = {p["key"]: p["weights"] for p in json.load(open(path("shift-text.json")))["panels"]}
e = [math.exp(s) for s in [0, -1, -10]]  # [1000, 999, 990] shifted by 1000
assert t["definition"] == [[None, None, None]], t
assert close(t["stable"][0], [x / sum(e) for x in e], 1e-12), t
svg_checks("shift-text.svg", 1, 3, 0, nan_legend=True)
t = {p["key"]: p["weights"] for p in json.load(open(path("weights-text.json")))["panels"]}
assert close(t["weights"][0], [0.1, 0.9], 1e-12)
assert close(t["contributions"][0], [0.1 * 10 / 1.9, 0.9 * 1 / 1.9], 1e-12), t  # ||v1|| = 10, ||v2|| = 1
svg_checks("weights-text.svg", 1, 2, 0, nan_legend=False)
assert len(list(csv.DictReader(open(path("masking-text.csv"))))) == 8

# Text: the text's example first when no input is given, and the random one.
plain = open(path("masking-plain.txt")).read()
assert "The two-token example of 32.2.6" in plain and "on random inputs" in plain
assert "'--' marks a forbidden cell" in open(path("masking-causal.txt")).read()
assert "'--' marks" not in open(path("masking-none.txt")).read()

# --font-scale 2 doubles the axis labels (11 px at 1).
sizes = lambda name: {e.getAttribute("font-size") for e in xml.dom.minidom.parse(path(name)).getElementsByTagName("text")
                      if e.getAttribute("class") == "col-index"}
assert sizes("masking-causal.svg") == {"11"} and sizes("big.svg") == {"22"}, (sizes("masking-causal.svg"), sizes("big.svg"))

# The sweep: 11 d_k x 2 series x 3 seeds; json's spread; the SVG's bands and lines.
rows = list(csv.DictReader(open(path("sweep.csv"))))
assert len(rows) == 11 * 2 * 3 and {r["series"] for r in rows} == {"scaled", "unscaled"}
assert sorted({int(r["d_k"]) for r in rows}) == [2 ** k for k in range(11)]
j = json.load(open(path("sweep.json")))
assert [s["key"] for s in j["series"]] == ["scaled", "unscaled"] and j["inputs"]["size"] == 8
for s in j["series"]:
    for p in s["points"]:
        e = p["mean_entropy"]
        assert e["min"] <= e["q1"] <= e["median"] <= e["q3"] <= e["max"] and len(e["per_seed"]) == 3
        assert abs(e["mean"] - sum(e["per_seed"]) / 3) < 1e-12
        assert all(0 <= x <= math.log(8) + 1e-12 for x in e["per_seed"])
doc = xml.dom.minidom.parse(path("sweep.svg"))
cls = lambda tag, c: [e for e in doc.getElementsByTagName(tag) if e.getAttribute("class") == c]
assert len(cls("polygon", "band")) == 4 and len(cls("polyline", "mean")) == 4
assert len(cls("polyline", "mean")[0].getAttribute("points").split()) == 11
assert "scaling-sweep" in open(path("list.txt")).read()
assert "d_k" in open(path("sweep.txt")).read() and "1024" in open(path("sweep.txt")).read()
# Text tables stay aligned past row 9: the panels' separator in one column.
rows12 = [l for l in open(path("scaling-12.txt")).read().splitlines() if l.startswith("  row ")]
assert len(rows12) == 12 and len({l.index("|") for l in rows12}) == 1, rows12
assert len({l.index(":") for l in rows12}) == 1, rows12
# Plain words: "no mask", "1 seed".
assert "no mask" in open(path("masking-none.txt")).read() and "none mask" not in open(path("masking-none.txt")).read()
for name in ("sweep-1.txt", "sweep-1.svg"):
    text = open(path(name)).read()
    assert "1 seeds" not in text and "1 seed" in text, (name, text[:400])
print("demo formats ok")
PY
echo "demo_formats_test: ok"
