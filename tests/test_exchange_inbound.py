"""Reading one inbound folder (autograder/exchange/inbound.py): one test per refusal reason, on a
temporary tree; what another account owns is made with chown, as root only."""
import os
import socket
import stat

import pytest

from autograder.exchange.inbound import Caps, Refused, _open, read_inbound, shown

CAPS = Caps(file_bytes=1000, total_bytes=1500, entries=20, depth=3)
ME = os.getuid()
OTHER = 54321  # no account of this machine's
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: files of another account are made with chown")


def everything(relative, is_folder):
    return True


def notebooks_only(relative, is_folder):
    return is_folder or relative.endswith(".ipynb")


@pytest.fixture
def folder(tmp_path):
    """A submission folder as nbgrader's submit leaves it (the kit's: 0755, files 0644)."""
    made = tmp_path / "alice+01+2026-12-07 01:00:00.000000 UTC+abc"
    made.mkdir(mode=0o755)
    (made / "01.ipynb").write_text("{}")
    (made / "timestamp.txt").write_text("2026-12-07 01:00:00.000000 UTC")
    for path in made.iterdir():
        path.chmod(0o644)
    return made


def refusal(folder, wanted=everything, caps=CAPS, uid=ME) -> str:
    with pytest.raises(Refused) as refused:
        read_inbound(str(folder), uid, wanted, caps)
    return str(refused.value)


def test_an_honest_folder_is_read_whole_with_its_latest_change_time(folder):
    inbound = read_inbound(str(folder), ME, everything, CAPS)
    assert inbound.files == {"01.ipynb": b"{}", "timestamp.txt": b"2026-12-07 01:00:00.000000 UTC"}
    assert inbound.review == ()
    latest = max(os.lstat(p).st_ctime_ns for p in [folder, *folder.iterdir()])
    assert inbound.changed_ns == latest


def test_a_file_changed_later_moves_the_time_and_touch_cannot_move_it_back(folder):
    before = read_inbound(str(folder), ME, everything, CAPS).changed_ns
    (folder / "01.ipynb").write_text('{"changed": 1}')
    os.utime(folder / "01.ipynb", (0, 0))  # touch -d 1970: mtime only
    assert read_inbound(str(folder), ME, everything, CAPS).changed_ns > before


def test_the_folder_itself_a_link_is_refused(folder, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert refusal(link) == "the submission folder is a symbolic link; only plain files and folders are collected"


def test_a_linked_notebook_is_refused_and_its_target_never_read(folder, tmp_path):
    secret = tmp_path / "solution.ipynb"
    secret.write_text("### BEGIN SOLUTION")
    (folder / "01.ipynb").unlink()
    (folder / "01.ipynb").symlink_to(secret)
    assert refusal(folder) == "01.ipynb is a symbolic link; only plain files and folders are collected"


def test_a_link_to_a_device_is_refused(folder):
    (folder / "timestamp.txt").unlink()
    (folder / "timestamp.txt").symlink_to("/dev/zero")
    assert "timestamp.txt is a symbolic link" in refusal(folder)


def test_a_fifo_is_refused_without_opening_it(folder):
    (folder / "01.ipynb").unlink()
    os.mkfifo(folder / "01.ipynb")
    assert refusal(folder) == "01.ipynb is a FIFO; only plain files and folders are collected"


def test_a_socket_is_refused(folder, monkeypatch):
    monkeypatch.chdir(folder)  # a socket's path is short (108 bytes): bind it where it lies, by name
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind("s.ipynb")
        assert refusal(folder) == "s.ipynb is a socket; only plain files and folders are collected"


@as_root
def test_a_device_node_is_refused(folder):
    os.mknod(folder / "zero.ipynb", stat.S_IFCHR | 0o644, os.makedev(1, 5))
    assert refusal(folder) == "zero.ipynb is a character device; only plain files and folders are collected"


def test_a_link_deep_inside_an_ignored_folder_still_refuses(folder):
    (folder / "notes").mkdir()
    (folder / "notes" / "shadow").symlink_to("/etc/shadow")
    assert "notes/shadow is a symbolic link" in refusal(folder, notebooks_only)


@as_root
def test_a_folder_of_another_account_is_refused(folder):
    os.chown(folder, OTHER, OTHER)
    assert refusal(folder) == f"the submission folder belongs to uid {OTHER}, not to the student"


@as_root
def test_a_file_of_another_account_is_refused(folder):
    os.chown(folder / "01.ipynb", OTHER, OTHER)
    assert refusal(folder) == f"01.ipynb belongs to uid {OTHER}, not to the student"


@as_root
def test_a_hard_link_to_a_file_another_account_owns_is_refused(folder, tmp_path):
    theirs = tmp_path / "theirs.ipynb"
    theirs.write_text("{}")
    os.chown(theirs, OTHER, OTHER)
    os.link(theirs, folder / "copy.ipynb")
    assert refusal(folder) == f"copy.ipynb belongs to uid {OTHER}, not to the student"


def test_a_file_over_the_cap_is_refused_as_it_is_read(folder):
    (folder / "01.ipynb").write_bytes(b"x" * (CAPS.file_bytes + 1))
    assert refusal(folder) == "01.ipynb is larger than 0.001 MB"


def test_files_over_the_total_cap_are_refused(folder):
    for name in ("a.ipynb", "b.ipynb"):
        (folder / name).write_bytes(b"x" * 900)
    assert refusal(folder) == "the submission is larger than 0.0015 MB in all"


def test_files_not_copied_are_checked_but_never_read(folder):
    (folder / "big.csv").write_bytes(b"x" * (CAPS.total_bytes * 2))
    assert set(read_inbound(str(folder), ME, notebooks_only, CAPS).files) == {"01.ipynb"}


def test_too_many_entries_or_too_deep_is_refused(folder):
    for index in range(CAPS.entries):
        (folder / f"f{index}").write_text("")
    assert refusal(folder) == f"the submission holds more than {CAPS.entries} files and folders"
    for path in folder.glob("f*"):
        path.unlink()
    (folder / "a" / "b" / "c" / "d").mkdir(parents=True)
    assert refusal(folder) == "a/b/c/d/ is nested more than 3 folders deep"


def test_what_other_accounts_could_write_goes_to_review(folder):
    folder.chmod(0o777)
    (folder / "01.ipynb").chmod(0o666)
    assert read_inbound(str(folder), ME, everything, CAPS).review == (
        "the submission folder could be written by other accounts (mode 0777)",
        "01.ipynb could be written by other accounts (mode 0666)")


def test_a_file_replaced_after_it_was_looked_at_is_refused(folder):
    seen = os.lstat(folder / "01.ipynb")
    (folder / "01.ipynb").rename(folder / "kept")  # alive, so the new file cannot reuse its inode
    (folder / "01.ipynb").write_text("{}")
    with pytest.raises(Refused, match="01.ipynb was replaced while it was being collected"):
        _open(str(folder / "01.ipynb"), 0, seen, "01.ipynb")


def test_names_a_student_chose_print_on_one_line():
    assert shown("a\nb\x1b[31m") == "a\\nb\\x1b[31m"
    assert len(shown("x" * 500)) == 80
