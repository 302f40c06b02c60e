"""The Python code of the guide pages runs (docs/workflows.md, docs/extending.md).

Each page's ``python`` blocks run in order in one fresh interpreter (a page
registers a test and a metric; a subprocess keeps them out of this process's
registries). The site itself is built by ``make docs`` (warnings as errors).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.slow  # about 20 s: a fresh interpreter compiles the kernels
@pytest.mark.parametrize("page", ["workflows.md", "extending.md"])
def test_page_code_runs(page, tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)
    assert blocks, page
    script = tmp_path / "page.py"
    script.write_text("\n".join(blocks))
    env = dict(os.environ, MPLBACKEND="Agg", NUMBA_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(DOCS.parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
