#!/usr/bin/env python3
"""Every text of every figure lies inside its SVG's viewBox at --font-scale
1, 1.5, 2 and 3, and no two texts on one line overlap (a projector's font
sizes widen the figure instead of running off it); the line plots grow
with the text, keeping their proportions (check_plots).

    svg_layout_test.py ATTNLAB

A text's width is estimated as 0.56 em a character (DejaVu Sans averages
about 0.55 em on these captions; bold about 0.6): an estimate of its own,
independent of the one the figures are laid out with."""
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

attnlab = sys.argv[1]
SVG = "{http://www.w3.org/2000/svg}"
failures = []


def boxes(path):
    root = ET.parse(path).getroot()
    _, _, W, H = (float(v) for v in root.get("viewBox").split())
    out = []
    for t in root.iter(SVG + "text"):
        text = "".join(t.itertext())
        if not text.strip():
            continue
        fs = float(t.get("font-size"))
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        w = len(text) * fs * (0.6 if t.get("font-weight") == "bold" else 0.56)
        anchor = t.get("text-anchor", "start")
        x0 = x if anchor == "start" else x - w / 2 if anchor == "middle" else x - w
        if re.search(r"rotate\(-90", t.get("transform", "")):
            # Turned a quarter: its length runs up the page around (x, y).
            out.append((text, x - fs, y - w / 2, x + 0.25 * fs, y + w / 2))
        else:
            out.append((text, x0, y - 0.8 * fs, x0 + w, y + 0.25 * fs))
    return W, H, out


def check(name, path):
    W, H, bs = boxes(path)
    for text, x0, y0, x1, y1 in bs:
        if x0 < -0.5 or y0 < -0.5 or x1 > W + 0.5 or y1 > H + 0.5:
            failures.append("%s: %r at [%.0f, %.0f] x [%.0f, %.0f] leaves the %.0f x %.0f viewBox"
                            % (name, text[:60], x0, x1, y0, y1, W, H))
    for i, a in enumerate(bs):
        for b in bs[i + 1:]:
            # Two texts on one line (the same baseline band) that cross.
            if abs(a[4] - b[4]) < 1 and min(a[3], b[3]) - max(a[1], b[1]) > 2:
                failures.append("%s: %r and %r overlap" % (name, a[0][:40], b[0][:40]))


# The line plots (the sweep, F5's curves and final figures) grow with the
# text, as the heatmaps do: at every font scale each plot keeps the
# proportions it has at 1 (within 5%: font sizes are whole pixels, 13 px at
# 1.5 is 20, not 19.5, and a plot widened to its texts follows them) and
# grows by the scale (within 10%),
# the lines thicken by it, and the plots reach across the figure (the right
# edge of the rightmost within 10% of the figure's width: no empty band).
plots = {}


def plot_geometry(name, scale, path):
    root = ET.parse(path).getroot()
    W = float(root.get("viewBox").split()[2])
    frames = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
              for r in root.iter(SVG + "rect") if r.get("fill") == "none" and r.get("stroke") == "#999"]
    lines = [float(p.get("stroke-width")) for p in root.iter(SVG + "polyline") if p.get("class") == "mean"]
    lines += [float(p.get("stroke-width")) for p in root.iter(SVG + "line") if p.get("class") == "mean"]
    if not frames or not lines:
        failures.append("%s --font-scale %s: no plot frame or line found" % (name, scale))
        return
    plots.setdefault(name, {})[float(scale)] = (W, frames, lines)
    right = max(x + w for x, _, w, _ in frames)
    if right < 0.9 * W:
        failures.append("%s --font-scale %s: the plots end at x = %.0f of a %.0f px wide figure (an empty band)"
                        % (name, scale, right, W))


def check_plots():
    for name, by_scale in plots.items():
        if 1.0 not in by_scale:
            continue
        _, frames1, lines1 = by_scale[1.0]
        for scale, (_, frames, lines) in by_scale.items():
            if len(frames) != len(frames1):
                failures.append("%s: %d plots at --font-scale %g, %d at 1" % (name, len(frames), scale, len(frames1)))
                continue
            for (_, _, w1, h1), (_, _, w, h) in zip(frames1, frames):
                if abs((w / h) / (w1 / h1) - 1) > 0.05:
                    failures.append("%s --font-scale %g: a plot %.0f x %.0f, at 1 %.0f x %.0f (proportions not kept)"
                                    % (name, scale, w, h, w1, h1))
                if abs(h / h1 / scale - 1) > 0.1:
                    failures.append("%s --font-scale %g: a plot %.0f px high, at 1 %.0f (not grown with the text)"
                                    % (name, scale, h, h1))
            for l1, l in zip(lines1, lines):
                if abs(l / l1 / scale - 1) > 0.01:
                    failures.append("%s --font-scale %g: a line %.2f px wide, at 1 %.2f" % (name, scale, l, l1))


with tempfile.TemporaryDirectory() as tmp:
    for scale in ("1", "1.5", "2", "3"):
        for demo in ("masking", "scaling", "shift", "weights", "scaling-sweep"):
            path = "%s/%s-%s.svg" % (tmp, demo, scale)
            subprocess.run([attnlab, "demo", demo, "--svg", path, "--font-scale", scale],
                           check=True, stdout=subprocess.DEVNULL)
            check("demo %s --font-scale %s" % (demo, scale), path)
            if demo == "scaling-sweep":
                plot_geometry("demo scaling-sweep", scale, path)
        subprocess.run([attnlab, "demo", "masking", "--example", "text", "--svg", tmp + "/text.svg",
                        "--font-scale", scale], check=True, stdout=subprocess.DEVNULL)
        check("demo masking --example text --font-scale %s" % scale, tmp + "/text.svg")
        for dks in ("16", "4,32", "4,16,64,256"):
            out = "%s/f5-%s-%s" % (tmp, scale, dks.replace(",", "_"))
            subprocess.run([attnlab, "experiment", "f5", "--out", out, "--seeds", "2", "--steps", "10",
                            "--d-k", dks, "--jobs", "2", "--font-scale", scale],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for fig in ("curves.svg", "final.svg"):
                check("experiment f5 --d-k %s --font-scale %s: %s" % (dks, scale, fig), out + "/" + fig)
                plot_geometry("experiment f5 --d-k %s: %s" % (dks, fig), scale, out + "/" + fig)
    check_plots()

for f in failures:
    print("FAIL:", f)
print("%d layout problems" % len(failures))
sys.exit(1 if failures else 0)
