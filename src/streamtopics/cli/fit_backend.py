"""`streamtopics fit ... --backend dask [--scheduler ADDRESS | --workers N]`: where the online
methods' E-step runs (`inference.backends`, docs/distributed.md).

Without ``--scheduler`` the Dask backend starts a `LocalCluster` of ``--workers`` processes (one
thread each), closed when the command ends; with it, it connects to a running scheduler (``dask
scheduler`` / ``dask worker``, dask-jobqueue, Kubernetes). Every backend trains the same model
for the same seed; only minibatches of more than 100 documents split, so a cluster pays only
with large ``--batch-size`` (the JSON output reports the bytes sent and received per step).
"""

from __future__ import annotations

from ..errors import InputError
from ..inference.backends import BACKENDS, DaskBackend, ThreadBackend
from .common import positive_int


def add_arguments(parser) -> None:
    group = parser.add_argument_group(
        "where the E-step runs (online methods except --model hdp; docs/distributed.md)")
    group.add_argument("--backend", choices=BACKENDS, default="serial",
                       help="serial (here), threads, or dask (default: serial); the same model "
                            "for the same seed on any of them")
    group.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="dask: the scheduler to connect to (tcp://HOST:8786); default: "
                            "start a LocalCluster")
    group.add_argument("--workers", type=positive_int, default=None, metavar="N",
                       help="dask without --scheduler: local worker processes of one thread "
                            "each; threads: threads (default: one per CPU)")


def backend(args, batch_methods: tuple[str, ...]):
    """The ``backend`` parameter ``args`` ask for ("serial", or a backend this command owns:
    `close` it after training); InputError for options that do not go together."""
    if args.backend != "dask" and args.scheduler is not None:
        raise InputError("--scheduler needs --backend dask")
    if args.backend == "serial":
        if args.workers is not None:
            raise InputError("--workers needs --backend dask or threads")
        return "serial"
    if args.method in batch_methods or args.model is not None:
        raise InputError(f"--backend {args.backend} maps the E-step of an online method's "
                         f"minibatches; the sweeps of cgs and cvb0 and the local step of "
                         f"--model {args.model or 'hdp'} do not split over documents")
    if args.backend == "threads":
        return ThreadBackend(workers=args.workers)
    if args.scheduler is not None and args.workers is not None:
        raise InputError("--workers starts a LocalCluster; with --scheduler the cluster's "
                         "workers are used: give one of them")
    try:
        started = DaskBackend.start(address=args.scheduler, n_workers=args.workers)
    except ImportError:
        raise InputError("--backend dask needs dask.distributed: pip install "
                         "'streamtopics[dask]'") from None
    except OSError as error:
        raise InputError(f"cannot reach the Dask scheduler {args.scheduler}: {error}") from None
    return started


def close(model) -> None:
    """Close the cluster or client `backend` started (training is over); nothing otherwise."""
    used = getattr(model, "backend", "serial")
    if isinstance(used, DaskBackend):
        used.close()


def summary(model) -> dict:
    """What the JSON output says about the backend: its name, workers, and for Dask the chunks
    and bytes per step."""
    used = getattr(model, "backend", "serial")
    if isinstance(used, str):
        return {"backend": used}
    transfer = getattr(used, "transfer", None)
    if transfer is None:
        return {"backend": {"backend": used.name, "workers": used.workers}}
    info = {"backend": used.name, "workers": transfer.workers}
    if transfer.steps:
        info.update(chunks_per_step=transfer.chunks / transfer.steps,
                    bytes_sent_per_step=transfer.sent / transfer.steps,
                    bytes_received_per_step=transfer.received / transfer.steps)
    return {"backend": info}
