"""Notebooks open in the learner's lab with nothing to save (lab/learner/jupyter_server_config.json
makes :class:`ContentsManager` the server's).

When a notebook's kernel starts, JupyterLab writes the kernel's ``language_info`` into the
notebook's metadata, the learner's Python version among it. Where the file's differs, and the
course's notebooks are written on another Python than the learner's (or with a bare
``{"name": "python"}``), the notebook shows as modified (●) before any edit. The learner's lab
serves every notebook of the ``python3`` kernel with the ``language_info`` that kernel reports:
ipykernel's, for this server's own Python, which jupyter_client runs that kernel with. Files on
disk change only when the learner saves, as before.
"""
from ipykernel.ipkernel import IPythonKernel
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager


class ContentsManager(AsyncLargeFileManager):
    """Jupyter's default contents manager, serving notebooks with their kernel's ``language_info``."""

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if model["type"] == "notebook" and model.get("content"):
            metadata = model["content"]["metadata"]
            if metadata.get("kernelspec", {}).get("name") == "python3":
                metadata["language_info"] = dict(IPythonKernel.language_info)
        return model
