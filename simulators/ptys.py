"""The pty a serial-device simulator speaks on: the simulator keeps the master, the driver opens the slave."""

from __future__ import annotations

import os
import tty

__all__ = ["open_pty_pair"]


def open_pty_pair() -> tuple[int, str]:
    """A new pty in raw mode: (master fd for the simulator, slave path for the driver).

    Raw mode on the slave means no echo and no CR/LF translation, so ``\\r\\n`` reaches
    the reader unchanged even before the driver configures the port. The slave fd is
    closed again: the driver opens the path (pyserial flushes stale input on open).
    """
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        path = os.ttyname(slave)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return master, path
