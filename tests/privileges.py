"""Run a command so that permission bits apply to it, also when the tests run as root (CI, containers)."""

from __future__ import annotations

import os
import shutil

#: The capabilities that let root ignore permission bits (read, write, search any file or folder).
DAC_CAPS = "-dac_override,-dac_read_search"


def unprivileged(cmd: list[str]) -> list[str]:
    """`cmd` unchanged for a normal user; for root, prefixed with util-linux `setpriv` dropping CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH from the bounding set, so the exec'd process is refused a mode 000 file or a mode 644 folder
    as any user would be. Raises AssertionError when root has no `setpriv` (a permission test must not pass or skip
    without the kernel checking)."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root needs util-linux `setpriv` to drop CAP_DAC_OVERRIDE for this test"
    return [setpriv, f"--bounding-set={DAC_CAPS}", *cmd]
