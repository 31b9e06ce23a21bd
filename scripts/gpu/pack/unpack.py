"""Copies the GPU check's pack into WORK and decompresses its .xz files there (Python's lzma, so the
machine needs no xz); the Node binary becomes executable.  python3 unpack.py PACK WORK"""
import lzma
import os
import shutil
import sys


def main(pack, work):
    if os.path.exists(work):
        shutil.rmtree(work)
    shutil.copytree(pack, work)
    for d, _, files in os.walk(work):
        for f in files:
            if f.endswith(".xz"):
                src = os.path.join(d, f)
                with lzma.open(src) as i, open(src[:-3], "wb") as o:
                    shutil.copyfileobj(i, o, 1 << 20)
                os.remove(src)
    os.chmod(os.path.join(work, "node"), 0o755)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: unpack.py PACK WORK")
    main(sys.argv[1], sys.argv[2])
