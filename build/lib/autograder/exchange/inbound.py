"""Read one submission folder of the exchange's inbound, trusting nothing in it (trusted side).

The folder and everything in it were made by a student's own process. It is walked through open
folder descriptors, never by path, and nothing is followed: every entry is ``lstat``-ed where it
lies, files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked to be the very inode that was
looked at. Only plain files and folders that the student's account owns are accepted; a link, a
FIFO, a device, a socket or a file of another account anywhere refuses the whole folder. What is
copied is read here, counted in bytes as they are read (never trusted from ``stat``), so a growing
file or a device cannot fill the disk. The time the folder counts as made is the latest change
time (``ctime``) of the folder and of everything in it: no unprivileged account can set it back.
"""
import os
import stat
from dataclasses import dataclass
from typing import Callable

CHUNK = 1 << 16
KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


class Refused(Exception):
    """A submission folder that is not collected; ``str()`` is the reason, in one line."""


@dataclass(frozen=True)
class Caps:
    """The most a folder may hold: bytes per copied file and in all, files and folders, depth."""

    file_bytes: int
    total_bytes: int
    entries: int = 1000
    depth: int = 8


@dataclass(frozen=True)
class Inbound:
    """What one folder held: the files to copy, when it last changed, and what a person should see."""

    files: dict  # relative path (posix) -> bytes
    changed_ns: int  # the latest ctime of the folder and of everything in it
    review: tuple = ()  # reasons a person should look (a file another account could have written)


def shown(name: str) -> str:
    """A name the student chose, safe to print on one line (escaped, at most 80 characters)."""
    text = ascii(name)[1:-1]
    return text if len(text) <= 80 else text[:77] + "..."


def read_inbound(folder: str, uid: int, wanted: Callable[[str, bool], bool], caps: Caps) -> Inbound:
    """Read ``folder`` (a path the trusted side built: the inbound folder and an entry of it), owned
    with all it holds by ``uid``. ``wanted(relative path, is_folder)`` says what is copied (files)
    or walked for copying (folders); everything is checked either way. :class:`Refused` otherwise."""
    walk = _Walk(uid, wanted, caps)
    top = os.lstat(folder)
    walk.check(top, "the submission folder", folder_expected=True)
    fd = _open(folder, os.O_DIRECTORY, top, "the submission folder")
    try:
        walk.folder(fd, "", 0, True)
    finally:
        os.close(fd)
    return Inbound(walk.files, walk.changed_ns, tuple(walk.review))


class _Walk:
    def __init__(self, uid, wanted, caps):
        self.uid, self.wanted, self.caps = uid, wanted, caps
        self.files, self.review, self.changed_ns, self.entries, self.total = {}, [], 0, 0, 0

    def check(self, info: os.stat_result, what: str, folder_expected: bool = False) -> None:
        """Refuse anything but a plain file or folder of the student's; note what others could write."""
        kind = stat.S_IFMT(info.st_mode)
        if kind in KINDS:
            raise Refused(f"{what} is {KINDS[kind]}; only plain files and folders are collected")
        if folder_expected and kind != stat.S_IFDIR:
            raise Refused(f"{what} is not a folder")
        if kind not in (stat.S_IFDIR, stat.S_IFREG):
            raise Refused(f"{what} is not a plain file or folder")
        if info.st_uid != self.uid:
            raise Refused(f"{what} belongs to {_account(info.st_uid)}, not to the student")
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            self.review.append(f"{what} could be written by other accounts (mode {stat.S_IMODE(info.st_mode):04o})")
        self.changed_ns = max(self.changed_ns, info.st_ctime_ns)

    def folder(self, fd: int, prefix: str, depth: int, copying: bool) -> None:
        if depth > self.caps.depth:
            raise Refused(f"{prefix or 'the submission folder'} is nested more than {self.caps.depth} folders deep")
        for name in sorted(os.listdir(fd)):
            self.entries += 1
            if self.entries > self.caps.entries:
                raise Refused(f"the submission holds more than {self.caps.entries} files and folders")
            relative = f"{prefix}{name}"
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            self.check(info, shown(relative))
            is_folder = stat.S_ISDIR(info.st_mode)
            wanted = copying and self.wanted(relative, is_folder)
            if is_folder:
                child = _open(name, os.O_DIRECTORY, info, shown(relative), fd)
                try:
                    self.folder(child, f"{relative}/", depth + 1, wanted)
                finally:
                    os.close(child)
            elif wanted:
                self.files[relative] = self.read(name, fd, info, shown(relative))

    def read(self, name: str, fd: int, info: os.stat_result, what: str) -> bytes:
        handle = _open(name, 0, info, what, fd)
        try:
            chunks, size = [], 0
            while chunk := os.read(handle, CHUNK):
                size += len(chunk)
                if size > self.caps.file_bytes:
                    raise Refused(f"{what} is larger than {self.caps.file_bytes / 1e6:g} MB")
                if self.total + size > self.caps.total_bytes:
                    raise Refused(f"the submission is larger than {self.caps.total_bytes / 1e6:g} MB in all")
                chunks.append(chunk)
            self.total += size
            self.changed_ns = max(self.changed_ns, os.fstat(handle).st_ctime_ns)  # a change while it was read
            return b"".join(chunks)
        finally:
            os.close(handle)


def _open(name: str, flags: int, seen: os.stat_result, what: str, dir_fd: int | None = None) -> int:
    """Open what ``seen`` described, never following a link; Refused when something else is there now."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | flags, dir_fd=dir_fd)
    except OSError as error:
        raise Refused(f"{what} could not be opened ({error.strerror})") from None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino) or stat.S_IFMT(now.st_mode) != stat.S_IFMT(seen.st_mode):
        os.close(fd)
        raise Refused(f"{what} was replaced while it was being collected")
    return fd


def _account(uid: int) -> str:
    import pwd

    try:
        return f"the account {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f"uid {uid}"
