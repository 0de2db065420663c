"""A software prefetch for numba kernels that gather rows of a large array.

A step's M-step rows (`kernels.statistics.blend_rows`, `affine_rows`: the blend of eq. 3 and the
word weights, Dupuy & Bach 2016) read the U rows of the minibatch's words from the V x K
statistics, in ascending but scattered order, after the E-step has evicted them from the
caches: each row starts a new stream that the hardware prefetcher cannot guess, so the loop
waits on memory at every row. Asking for the row a few words ahead while the current one is
computed overlaps those waits. A hint only: no value changes.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CACHE_LINE = 64


@intrinsic
def prefetch(typingctx, array):
    """Hint the caches to load every line of a contiguous 1-D array (``llvm.prefetch``: read,
    highest locality, data cache); e.g. ``prefetch(raw[words[u + 4]])``. Nothing for an array
    that is not known to be contiguous."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    signature = types.void(array)

    def codegen(context, builder, signature, args):
        if array.layout != "C":
            return context.get_dummy_value()
        data = context.make_array(signature.args[0])(context, builder, args[0])
        byte = ir.IntType(8).as_pointer()
        start = builder.bitcast(data.data, byte)
        size = builder.mul(builder.extract_value(data.shape, 0),
                           context.get_constant(types.intp, array.dtype.bitwidth // 8))
        hint = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte], ir.FunctionType(ir.VoidType(), [byte] + [ir.IntType(32)] * 3))
        flags = [ir.Constant(ir.IntType(32), value) for value in (0, 3, 1)]
        with cgutils.for_range_slice(builder, context.get_constant(types.intp, 0), size,
                                     context.get_constant(types.intp, CACHE_LINE)) as (offset, _):
            builder.call(hint, [builder.gep(start, [offset]), *flags])
        return context.get_dummy_value()

    return signature, codegen
