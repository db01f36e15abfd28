"""Headless Chromium for the tests of the HTML report (test_report, test_tune_report):
launch it on a page, read a screenshot's pixels without PIL, and tell a blank page."""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browse(html, tmp, *args):
    """Headless Chromium on @html (a profile of its own under @tmp), as docs/ENV says to
    launch it; its stdout."""
    profile = tempfile.mkdtemp(dir=tmp)
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", *args, "file://" + html]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"chromium failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit PNG, without PIL."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, "only 8-bit non-interlaced PNGs"
            bpp = {2: 3, 6: 4, 0: 1, 4: 2}[colour]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def colours_and_ink(path):
    """(width, height, distinct colours, share of non-white pixels) of a screenshot, every
    4th pixel of every 4th row."""
    width, height, rows, bpp = png_pixels(path)
    colours, ink, seen = set(), 0, 0
    for row in rows[::4]:
        for x in range(0, len(row), bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            ink += px != b"\xff\xff\xff"
            seen += 1
    return width, height, len(colours), ink / max(seen, 1)


def assert_screenshot_not_blank(test, html, tmp):
    """A 1200x2400 screenshot of @html: many colours, not almost all white."""
    png = os.path.join(tempfile.mkdtemp(dir=tmp), "shot.png")
    browse(html, tmp, f"--screenshot={png}", "--window-size=1200,2400")
    width, height, colours, ink = colours_and_ink(png)
    test.assertEqual((width, height), (1200, 2400))
    test.assertGreater(colours, 20, "too few colours: a blank page?")
    test.assertGreater(ink, 0.02, "almost all white")
