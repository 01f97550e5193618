#!/usr/bin/env bash
# `sparsemap report` end to end: a tiny report renders in headless Chromium with every section
# (each with a drawn SVG), its screenshot is a PNG well above a blank page's, and bad input
# exits 2 with one line. Chromium (Debian `chromium`, scripts/bootstrap-deps.sh) is required:
# without it the test fails, it never skips.
# Usage: report_test.sh PATH/TO/sparsemap   (run from the repository root)
set -u
bin=$1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
  echo "FAIL: chromium is not installed (Debian package chromium; scripts/bootstrap-deps.sh installs it)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Headless, offline, no profile left behind.
chrome() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" "$@" 2>>"$tmp/chromium.log"
}

# A tiny report: resnet18, small budgets, two SpMM shapes (seconds).
if ! "$bin" report --model resnet18 --hw maestro-example --budget 20 --codesign-budget 16 \
  --spmm-shapes 2 --spmm-cols 16 --spmm-sparsity 0.5,0.9 --spmm-min-ms 0.2 --no-profile --quiet \
  --out "$tmp/report.html" --json "$tmp/report.json" 2>"$tmp/err"; then
  fail "sparsemap report exited non-zero: $(head -c 300 "$tmp/err")"
  exit 1
fi
grep -q "<script" "$tmp/report.html" && fail "the report has a script"
grep -Eq "(src|href)=\"(https?:|//)" "$tmp/report.html" && fail "the report loads an external resource"

# The DOM as Chromium built it: every section present, each with an <svg> that draws things.
chrome --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" || fail "chromium --dump-dom failed"
/usr/bin/python3 - "$tmp/dom.html" <<'PY' || fails=$((fails + 1))
import sys
from html.parser import HTMLParser

ids = ["section-summary", "section-mappings", "section-codesign", "section-nongemm", "section-spmm"]
drawn = {"rect", "circle", "line", "polyline", "path", "text"}

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.count, self.svgs = [], {}, {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("id") in ids:
            self.stack.append(a["id"])
            self.count.setdefault(a["id"], 0)
            self.svgs.setdefault(a["id"], 0)
        elif self.stack and tag == "svg":
            self.svgs[self.stack[-1]] += 1
        elif self.stack and tag in drawn:
            self.count[self.stack[-1]] += 1
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "section":
            self.handle_endtag(tag)
    def handle_endtag(self, tag):
        if tag == "section" and self.stack:
            self.stack.pop()

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
bad = 0
for i in ids:
    if i not in p.count:
        print(f"FAIL: section {i} is missing from the DOM"); bad += 1
    elif i != "section-summary" and (p.svgs[i] < 1 or p.count[i] < 20):
        print(f"FAIL: section {i} has {p.svgs[i]} svg and {p.count[i]} drawn elements"); bad += 1
sys.exit(1 if bad else 0)
PY

# The screenshot: a PNG, far larger than a blank page's of the same size.
echo "<!DOCTYPE html><html><body></body></html>" >"$tmp/blank.html"
chrome --screenshot="$tmp/shot.png" --window-size=1280,4000 "file://$tmp/report.html" >/dev/null ||
  fail "chromium --screenshot failed"
chrome --screenshot="$tmp/blank.png" --window-size=1280,4000 "file://$tmp/blank.html" >/dev/null ||
  fail "chromium --screenshot of a blank page failed"
/usr/bin/python3 - "$tmp/shot.png" "$tmp/blank.png" <<'PY' || fails=$((fails + 1))
import struct, sys, zlib

def png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"FAIL: {path} is not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    return data, w, h

shot, w, h = png(sys.argv[1])
blank, _, _ = png(sys.argv[2])
if (w, h) != (1280, 4000):
    raise SystemExit(f"FAIL: screenshot is {w}x{h}, expected 1280x4000")
if len(shot) < 10 * len(blank) or len(shot) < 100_000:
    raise SystemExit(f"FAIL: screenshot {len(shot)} bytes vs blank {len(blank)} bytes")
# Distinct colours in the top 500 rows (summary tiles and the first chart), decoded here.
ctype = shot[25]
bpp = {2: 3, 6: 4}.get(ctype)
if shot[24] != 8 or bpp is None:
    raise SystemExit(f"FAIL: unexpected PNG format (bit depth {shot[24]}, colour type {ctype})")
idat, i = b"", 8
while i < len(shot):
    n = struct.unpack(">I", shot[i:i + 4])[0]
    if shot[i + 4:i + 8] == b"IDAT":
        idat += shot[i + 8:i + 8 + n]
    i += 12 + n
stride = w * bpp
raw = zlib.decompressobj().decompress(idat, 500 * (stride + 1))
prev, colours = bytearray(stride), set()
for r in range(500):
    f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(line[k:k + 3]) for k in range(0, stride, bpp))
    prev = line
if len(colours) < 50:
    raise SystemExit(f"FAIL: the top of the screenshot has {len(colours)} distinct colours")
print(f"screenshot {w}x{h}, {len(shot)} bytes (blank page: {len(blank)} bytes), "
      f"{len(colours)} colours in its top 500 rows")
PY

# The NonGEMM section of a suite model: measured with libtorch, or says the build has none.
if "$bin" report --model resnet50 --hw maestro-example --budget 10 --codesign-budget 8 \
  --spmm-shapes 0 --profile-iters 1 --quiet --out "$tmp/r50.html" --json "$tmp/r50.json" \
  2>"$tmp/err"; then
  /usr/bin/python3 - "$tmp/r50.json" "$tmp/r50.html" <<'PY' || fails=$((fails + 1))
import json, sys
m = json.load(open(sys.argv[1]))["nongemm"]["measured"]
page = open(sys.argv[2], encoding="utf-8").read()
if m["available"]:
    ok = m["total_ms"] > 0 and 0 < m["gemm_ms"] < m["total_ms"] and "CPU, measured" in page
    ok = ok and m.get("hw", {}).get("gemm_ms", 0) > 0
elif "without libtorch" in m["why_absent"]:
    ok = "built without libtorch" in page
else:
    ok = False
if not ok:
    sys.exit(f"FAIL: resnet50's NonGEMM section: {json.dumps(m)[:300]}")
PY
else
  fail "sparsemap report --model resnet50 exited non-zero: $(head -c 300 "$tmp/err")"
fi

# Bad input: one line on stderr, exit 2.
bad() {
  local what=$1
  shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 ]]; then
    fail "$what: exit $rc (expected 2), $lines lines on stderr (expected 1): $(head -c 300 "$tmp/err")"
  fi
}
bad "unknown model" report --model no-such-model --hw maestro-example --out "$tmp/x.html"
bad "unknown hw" report --model resnet18 --hw no-such-hw --out "$tmp/x.html"
bad "--out in a missing folder" report --model resnet18 --hw maestro-example --out "$tmp/missing/x.html"
bad "--out a folder" report --model resnet18 --hw maestro-example --out "$tmp"
bad "bad format" report --model resnet18 --hw maestro-example --out "$tmp/x.html" --spmm-formats bogus
[[ -e $tmp/x.html ]] && fail "a rejected run wrote its --out file"

echo "report e2e: $fails failed"
[[ $fails -eq 0 ]]
