"""fplab: the %%gpu_optional magic on both paths, seeding and the environment line."""
import pytest
import torch
from IPython.core.interactiveshell import InteractiveShell

import fplab
import fplab.notebook


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    fplab.setup_notebook(shell=ip)
    yield ip
    ip.user_ns.pop("ran", None)


def test_gpu_optional_without_cuda_prints_one_skip_line_and_runs_nothing(shell, monkeypatch, capsys):
    monkeypatch.setattr(fplab.notebook, "cuda_available", lambda: False)
    shell.run_cell("%%gpu_optional\nran = True\nprint('body ran')")
    assert capsys.readouterr().out == fplab.GPU_SKIP_MESSAGE + "\n"
    assert "ran" not in shell.user_ns


def test_gpu_optional_with_cuda_runs_the_cell_in_the_user_namespace(shell, monkeypatch, capsys):
    monkeypatch.setattr(fplab.notebook, "cuda_available", lambda: True)
    shell.run_cell("%%gpu_optional\nran = 40 + 2\nprint('body ran')")
    assert shell.user_ns["ran"] == 42
    assert capsys.readouterr().out == "body ran\n"


def test_gpu_optional_with_cuda_lets_errors_surface(shell, monkeypatch):
    monkeypatch.setattr(fplab.notebook, "cuda_available", lambda: True)
    result = shell.run_cell("%%gpu_optional\nraise ValueError('from the cell')")
    assert isinstance(result.error_in_exec, ValueError)


def test_gpu_optional_with_cuda_accepts_line_magics_inside(shell, monkeypatch):
    monkeypatch.setattr(fplab.notebook, "cuda_available", lambda: True)
    shell.run_cell("%%gpu_optional\n%time ran = 7")
    assert shell.user_ns["ran"] == 7


def test_load_ext_prints_the_environment_line(capsys):
    ip = InteractiveShell.instance()
    ip.extension_manager.loaded.discard("fplab")  # fplab has no unload hook: forget it so load_ext runs it again
    ip.run_line_magic("load_ext", "fplab")
    out = capsys.readouterr().out
    assert f"torch {torch.__version__}" in out
    assert ("CPU only" in out) != torch.cuda.is_available()


@pytest.mark.parametrize("cuda", [False, True])
def test_environment_summary_names_the_device(monkeypatch, cuda):
    monkeypatch.setattr(fplab.device, "cuda_available", lambda: cuda)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: "Fake GPU")
    summary = fplab.environment_summary()
    assert ("Fake GPU" in summary) == cuda
    assert fplab.default_device().type == ("cuda" if cuda else "cpu")


def test_seed_all_makes_torch_and_numpy_repeat():
    import numpy as np

    fplab.seed_all(3)
    first = (torch.rand(3), np.random.rand(3))
    fplab.seed_all(3)
    second = (torch.rand(3), np.random.rand(3))
    assert torch.equal(first[0], second[0]) and (first[1] == second[1]).all()
