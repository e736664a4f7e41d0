"""Shared helper: build Delta tables with a FIXED writer (venvs/writer: deltalake 1.1.4 +
pyarrow 21), independent of the reader version under test. Usage from repro scripts:
    from _writer import build_table
    build_table(path, WRITER_CODE)   # WRITER_CODE is python source using `path`
"""
import os, subprocess, sys, textwrap
WRITER_PY = os.environ.get("KB_WRITER_PY", os.path.join(os.environ.get("KB_VENVS", os.path.expanduser("~/.cache/delta-explain/known-bugs")), "writer/bin/python"))

def build_table(path, code):
    src = "path = %r\n" % path + textwrap.dedent(code)
    subprocess.run([WRITER_PY, "-c", src], check=True)
