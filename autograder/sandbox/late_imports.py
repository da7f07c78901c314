"""Heavy modules a kernel imports only when its notebook's code uses them. The kernel server
(:mod:`autograder.sandbox.kernel_server`) imports each once, at the first notebook that asks for it, so
that assignments that never use one do not pay it at every worker's start. Only a matter of speed:
a kernel whose notebook was not matched imports the module itself."""
import re

# Module -> what, in a notebook's code, imports it when it runs. Measured on the solved notebooks:
# torch.compile's front end (0.6 s of CPU): 04 and 07-11 (an optimizer, a TorchDispatchMode,
# torch.compile); torch.distributed.tensor, with sympy (0.55 s), at assert_close's first call: 01, 09.
LATE_IMPORTS = {
    "torch._dynamo": re.compile(r"torch\.optim\.\w+\(|TorchDispatchMode|torch\.compile|torch\._dynamo"),
    "torch.distributed.tensor": re.compile(r"assert_close"),
}


def late_imports(nb) -> list:
    """The modules of LATE_IMPORTS that ``nb``'s code looks like it will import."""
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    return [module for module, use in LATE_IMPORTS.items() if use.search(code)]
