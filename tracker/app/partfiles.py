"""Part files: an export is written in a file of its own beside its target and renamed over it
when whole. One left by a writer that was killed (SIGKILL, a power cut) is swept by the next
export to that target and by `tracker where`; one a writer is still writing never is.

A part file is named ``.TARGET.tracker-PID.XXXXXXXX.part``. Its writer holds an exclusive
``flock`` on it while it writes; the lock goes with the process, however it ends. A part file
is swept only when all of these hold: its name is tracker's, it is a regular file of this user,
the process its name gives is not alive here, and its lock can be taken. The process is
asked as well as the lock because a new file is unlocked for a moment before its writer locks
it, and because some file systems keep no locks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile

# Room in a name of 255 bytes for what tracker adds around the target's name.
TARGET_CHARS = 200
PART = re.compile(r"\.(?P<target>.+)\.tracker-(?P<pid>\d{1,10})\.[a-z0-9_]{8}\.part")


def create(final: str) -> tuple[int, str]:
    """A new part file beside ``final``, locked for this process: its descriptor and its path.
    Part files of ``final`` that killed writers left are swept first. Raises OSError when the
    folder takes no new file."""
    folder, target = os.path.split(final)
    sweep(folder, target)
    fd, part = tempfile.mkstemp(
        prefix=f".{target[:TARGET_CHARS]}.tracker-{os.getpid()}.", suffix=".part", dir=folder
    )
    with contextlib.suppress(OSError):  # a file system without locks: the pid still tells
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd, part


def sweep(folder: str, target: str | None = None) -> list[str]:
    """Remove the part files in ``folder`` (only ``target``'s, when given) that no running
    writer holds; return their paths."""
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    swept = []
    for name in sorted(names):
        found = PART.fullmatch(name)
        if found is None or (target is not None and found["target"] != target[:TARGET_CHARS]):
            continue
        path = os.path.join(folder, name)
        if not _alive(int(found["pid"])) and _removed_if_unheld(path):
            swept.append(path)
    return swept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OverflowError:  # no process has such a number
        return False
    except OSError:  # another user's process (EPERM), or not to be asked: taken as alive
        return True
    return True


def _removed_if_unheld(path: str) -> bool:
    """Remove ``path`` if it is this user's regular file and its lock can be taken."""
    try:
        # Not through a link, and without waiting on a pipe named like a part file.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        held = os.fstat(fd)
        if not stat.S_ISREG(held.st_mode) or held.st_uid != os.getuid():
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its writer is still writing
        except OSError:
            pass  # a file system without locks: the pid said the writer is gone
        try:
            now = os.stat(path, follow_symlinks=False)
            if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
                return False  # replaced since it was opened
            os.unlink(path)
        except OSError:
            return False
        return True
    finally:
        os.close(fd)
