"""Where a batch's submissions run, and in what order: a local pool of workers sharing this process's
fork servers, or a Dask cluster; this process admits the next student whenever it would otherwise
wait. Only :func:`~autograder.sandbox.run.run_in_sandbox` runs on a worker."""
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from autograder.course import CourseError
from autograder.sandbox.run import run_in_sandbox
from autograder.sandbox.servers import begin_servers, shared_servers, start_servers

# Students admitted and queued per worker, at most, ahead of the one it runs: enough that the
# admissions fill the 2 s a kernel server takes to import (8 left a core idle for 0.4 s of them).
AHEAD = 16


@contextmanager
def worker_pool(workers: int):
    """A local pool of ``workers`` started now, each connecting to the fork servers this process
    shares for the pool's life, while it goes on (generating the assignment, admitting the first
    students)."""
    with shared_servers(), ProcessPoolExecutor(max_workers=workers, initializer=start_servers) as pool:
        for _ in range(workers):
            pool.submit(int)  # a task starts the workers (all of them, or one each while none is idle)
        yield pool


@contextmanager
def runners(workers, scheduler, pool=None):
    """Where submissions run: ``pool`` (a caller's local process pool), a new local pool of
    ``workers``, or the Dask cluster at ``scheduler``."""
    if pool is not None:
        yield pool
        return
    if not scheduler:
        with worker_pool(workers) as local:
            yield local
        return
    from distributed import Client

    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise CourseError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    with client:
        client.run(begin_servers)  # each worker's fork servers start now, while this process admits
        # A worker lost mid-batch: its tasks are rescheduled on the others (Dask's allowed_failures).
        yield client.get_executor(pure=False)


def drain(pending: set, feed, finish, workers: int) -> None:
    """Run a batch to its end: ``pending``, the futures of the students submitted so far;
    ``feed(n)``, the futures of up to ``n`` more (fewer only when none are left); ``finish(done)``
    takes those that ended. This process admits the next student whenever it would otherwise
    wait (most while the fork servers start, when a core idles, rather than beside the runs),
    with at most AHEAD students per worker queued."""
    admitting = True
    while True:
        ahead = admitting and len(pending) < workers * (AHEAD + 1)
        if not pending and not ahead:
            return
        done, pending = wait(pending, timeout=0 if ahead else None, return_when=FIRST_COMPLETED)
        if not done:
            fed = feed(1)
            admitting, pending = bool(fed), pending | fed
            continue
        finish(done)
        if len(pending) < workers and not admitting:  # a worker idles: the summary's imports take its core
            import matplotlib.figure  # noqa: F401


def run_later(pool, notebook_json: str, limits):
    """The future of ``notebook_json``'s run in the sandbox on ``pool``."""
    return pool.submit(run_in_sandbox, notebook_json, limits)


def sandbox_result(future, notebook_json, limits):
    """The future's SandboxRun. When a pool process died (BrokenProcessPool fails every run the
    pool held), the run is made again alone in a fresh process, so only a run whose own process
    dies again fails (that student's grader_error); the batch goes on."""
    try:
        return future.result()
    except BrokenProcessPool:
        with ProcessPoolExecutor(max_workers=1) as alone:
            try:
                return run_later(alone, notebook_json, limits).result()
            except BrokenProcessPool:
                raise BrokenProcessPool("the grading process running this submission died "
                                        "(run alone, it died again); the other students were graded") from None
