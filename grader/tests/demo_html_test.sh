#!/bin/sh
# demo_html_test.sh ATTNLAB
# `attnlab demo --html DIR` writes one self-contained page: no network (no
# URL fetched, no external script, stylesheet or image), every figure of
# the page (the four demonstrations on random inputs and on the text's
# example, and the scaling-sweep) with its caption, its command and its
# controls. Then headless Chromium (Debian's chromium) draws it: the inline
# script ran, each figure shows exactly one variant with its SVG drawn, a
# fragment chooses the variant (masking with no mask: no crossed cell), and
# a screenshot is taken. Without chromium the page checks still run and the
# test exits 77 (skipped) saying so.
set -u
attnlab=$1
tmp=$(mktemp -d /tmp/attnlab-demo-html-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "demo_html_test: $*" >&2; exit 1; }
"$attnlab" demo --html "$tmp/page" 2> "$tmp/err" || fail "attnlab demo --html failed: $(cat "$tmp/err")"
[ -f "$tmp/page/index.html" ] || fail "no index.html"
"$attnlab" demo masking --html "$tmp/other" > /dev/null 2>&1 && fail "--html accepted a NAME"

# The page alone (html.parser, no browser).
/usr/bin/python3 - "$tmp/page/index.html" <<'PY' || fail "the page is not as expected"
import re, sys
from html.parser import HTMLParser
text = open(sys.argv[1], encoding="utf-8").read()
# The only URL is the SVG namespace, a name never fetched.
urls = set(re.findall(r"(?:https?|ftp)://[^\s\"'<>)]+", text))
assert urls <= {"http://www.w3.org/2000/svg"}, urls
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.current, self.tags = [], None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        assert not (tag == "script" and "src" in a), a
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
        if tag == "section" and a.get("class") == "figure":
            self.current = {"id": a["id"], "variants": 0, "svgs": 0, "selects": 0, "commands": 0, "captions": 0}
            self.sections.append(self.current)
        if self.current is None:
            return
        if tag == "div" and a.get("class") == "variant": self.current["variants"] += 1
        if tag == "svg": self.current["svgs"] += 1
        if tag == "select": self.current["selects"] += 1
        if tag == "code" and a.get("class") == "command": self.current["commands"] += 1
        if tag == "p" and a.get("class") == "caption": self.current["captions"] += 1
p = Page()
p.feed(text)
ids = [s["id"] for s in p.sections]
want = ["masking", "masking-text", "scaling", "scaling-text", "shift", "shift-text", "weights",
        "weights-text", "scaling-sweep"]
assert ids == want, ids
for s in p.sections:
    assert s["variants"] >= 1 and s["svgs"] == s["variants"] == s["commands"] == s["captions"], s
    assert (s["selects"] > 0) == (not s["id"].endswith("-text")), s
# masking: 3 masks x 2 sizes x 2 seeds; the sweep: 2 sizes x 2 seeds.
assert p.sections[0]["variants"] == 12 and p.sections[-1]["variants"] == 4
assert "attnlab demo masking --mask none --size 8 --seed 2 --d-k 16 --svg masking.svg" in text
# The figures whose controls have no d_k say which d_k they have.
for fig in ("masking", "shift", "weights"):
    section = text[text.index('<section class="figure" id="%s">' % fig):]
    section = section[:section.index("</section>")]
    assert section.count("Every variant on this page has d_k = 16") == section.count('class="caption"') > 0, fig
print("page ok")
PY

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "demo_html_test: SKIPPED the rendering: Debian's chromium is not installed (apt-get install chromium)"
  exit 77
fi
url="file://$tmp/page/index.html#masking:mask=none&size=8&seed=2"
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --user-data-dir=$tmp/profile"
timeout 120 "$browser" $flags --virtual-time-budget=5000 --dump-dom "$url" > "$tmp/dom.html" 2> "$tmp/chromium.err" ||
  fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.err")"
timeout 120 "$browser" $flags --window-size=1400,2600 --screenshot="$tmp/shot.png" "$url" > /dev/null 2>> "$tmp/chromium.err" ||
  fail "chromium --screenshot failed: $(tail -5 "$tmp/chromium.err")"
/usr/bin/python3 - "$tmp/dom.html" "$tmp/shot.png" <<'PY' || fail "the page as Chromium drew it is not as expected"
import struct, sys, zlib
from html.parser import HTMLParser
class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ready, self.sections, self.visible, self.stack = False, [], None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body": self.ready = a.get("data-ready") == "yes"
        if tag == "section" and a.get("class") == "figure":
            self.sections.append({"id": a["id"], "shown": [], "cells": 0, "crosses": 0})
        if tag == "div" and a.get("class") == "variant" and "hidden" not in a:
            self.sections[-1]["shown"].append(a["data-params"])
            self.visible = len(self.sections) - 1
        elif tag == "div" and a.get("class") == "variant":
            self.visible = None
        if self.visible is not None and self.sections and self.visible == len(self.sections) - 1:
            if tag == "rect" and a.get("class") == "cell": self.sections[-1]["cells"] += 1
            if tag == "path" and a.get("class") == "forbidden": self.sections[-1]["crosses"] += 1
d = Dom()
d.feed(open(sys.argv[1], encoding="utf-8").read())
assert d.ready, "the page's script did not run"
assert len(d.sections) == 9, [s["id"] for s in d.sections]
for s in d.sections:
    assert len(s["shown"]) == 1, s  # exactly one variant per figure
by_id = {s["id"]: s for s in d.sections}
# The fragment chose masking with no mask, size 8, seed 2: 2 x 64 cells, none crossed.
assert by_id["masking"]["shown"] == ["mask=none&size=8&seed=2"], by_id["masking"]
assert by_id["masking"]["cells"] == 128 and by_id["masking"]["crosses"] == 0, by_id["masking"]
# The other figures keep their first variant: shift on a 4 x 4 causal mask, 6 forbidden cells a panel.
assert by_id["shift"]["shown"] == ["mask=causal&size=4&seed=1"] and by_id["shift"]["crosses"] == 12, by_id["shift"]
assert by_id["masking-text"]["cells"] == 8 and by_id["masking-text"]["crosses"] == 2
# The screenshot is a PNG that is not blank: its decoded rows are not all one colour.
png = open(sys.argv[2], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert w == 1400 and h == 2600, (w, h)
data, pos = b"", 8
while pos < len(png):
    n, kind = struct.unpack(">I4s", png[pos:pos + 8])
    if kind == b"IDAT": data += png[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(data)
assert len(set(raw[::97])) > 8, "the screenshot is blank"
print("rendered ok")
PY
# A fragment asking for a value the page has no variant of (size 16, seed 3)
# shows the nearest variant (size 8; seed 2) and says so, never a blank figure.
url2="file://$tmp/page/index.html#masking:mask=padding&size=16&seed=3"
timeout 120 "$browser" $flags --virtual-time-budget=5000 --dump-dom "$url2" > "$tmp/dom2.html" 2>> "$tmp/chromium.err" ||
  fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.err")"
/usr/bin/python3 - "$tmp/dom2.html" <<'PY' || fail "a value with no variant did not fall back to the nearest, said"
import sys
from html.parser import HTMLParser
class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.section, self.shown, self.note, self.in_note = None, [], None, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section": self.section = a.get("id")
        if self.section != "masking": return
        if tag == "div" and a.get("class") == "variant" and "hidden" not in a: self.shown.append(a["data-params"])
        if tag == "p" and a.get("class") == "fallback":
            self.in_note, self.note = "hidden" not in a, ""
    def handle_endtag(self, tag):
        if tag == "p": self.in_note = False
    def handle_data(self, data):
        if self.in_note: self.note += data
d = Dom()
d.feed(open(sys.argv[1], encoding="utf-8").read())
assert d.shown == ["mask=padding&size=8&seed=2"], d.shown
assert d.note and "size = 16" in d.note and "seed = 3" in d.note and "nearest" in d.note, d.note
print("fallback ok:", d.note)
PY
# A fragment with controls scrolls its figure into view (no element has the
# whole fragment as its id, so the browser alone would not): the figure's top
# at the window's top, the page scrolled.
url3="file://$tmp/page/index.html#scaling:d-k=1024"
timeout 120 "$browser" $flags --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "$url3" > "$tmp/dom3.html" \
  2>> "$tmp/chromium.err" || fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.err")"
/usr/bin/python3 - "$tmp/dom3.html" <<'PY' || fail "#scaling:d-k=1024 did not scroll to its figure"
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
body = re.search(r"<body[^>]*>", dom).group(0)
m = re.search(r'data-scrolled-to="(\S+) (-?\d+) (\d+)"', body)
assert m, body
assert m.group(1) == "scaling" and abs(int(m.group(2))) <= 2 and int(m.group(3)) > 0, m.groups()
shown = re.search(r'<section class="figure" id="scaling">.*?<div class="variant" data-params="([^"]*)"(?! hidden)', dom, re.S)
assert shown and html.unescape(shown.group(1)) == "d-k=1024&size=4&seed=1", shown and shown.group(1)
print("scrolled ok:", m.groups())
PY
echo "demo_html_test: ok"
