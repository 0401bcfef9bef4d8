"""What a measurement ran on: the machine, its BLAS, NumPy and Python."""

from __future__ import annotations

import os
import platform

import numpy as np


def machine_info() -> dict:
    """What the measurements ran on: CPU model, core count, BLAS, NumPy, Python.

    The CPU model comes from ``/proc/cpuinfo`` when it exists (Linux), else
    from :func:`platform.processor`; the BLAS library from NumPy's build
    configuration (``numpy.show_config(mode="dicts")``).

    Returns
    -------
    dict
        ``cpu``, ``cores`` (:func:`os.cpu_count`), ``blas`` (name and
        version), ``numpy``, ``python`` and ``system``; every value a string
        except ``cores``.

    Examples
    --------
    >>> info = machine_info()
    >>> sorted(info)
    ['blas', 'cores', 'cpu', 'numpy', 'python', 'system']
    >>> info["cores"] >= 1
    True
    """
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cpu = " ".join(cpu.split()) or platform.processor() or platform.machine() or "unknown CPU"
    blas = "unknown BLAS"
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = " ".join(str(deps.get(key, "")) for key in ("name", "version")).strip() or blas
    except (KeyError, TypeError, AttributeError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 1,
        "blas": blas,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}".strip(),
    }
