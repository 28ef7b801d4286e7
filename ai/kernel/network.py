"""The small network of :mod:`ai.pattern_training.network` compiled, in integers, for ``master``: ``128 -> 32 -> 32 ->
1`` with ReLU, added to the value of the features and the pattern tables.

The weights sit in the constant table (:mod:`ai.kernel.tables`) from ``k[NETWORK_AT]`` on, each float times
:data:`ai.patterns.network.Q` rounded (:func:`ai.patterns.network.quantized`, which holds the layout): the first layer
by input (``W1[i]``, 32 values), its biases, the second layer by unit of the first (``W2[j]``, 32 values, as 32-bit
integers two to a word: :func:`ai.patterns.network.packed`), its biases, the output's weights and bias. The arithmetic
is exact and floors where it scales back (``>> SHIFT``), so a plain-Python reference of the same integers gives the
same value (``tests/ai/patterns/test_network_kernel.py``). The second layer adds its products in 32 bits, which
vectorize twice as wide as 64-bit ones: exact because no unit's sum can reach 32 bits, which
:func:`~ai.patterns.network.packed` proves of the weights before the table is built (for the shipped ones the bound
is about 2 ** 27). The first layer is summed from scratch at each evaluation (at most 24
rows of 32). Keeping it up to date from leaf to leaf instead (NNUE's accumulator, ``benchmarks/accumulator.patch``)
made the search slower, not faster, when it was measured (with the layers' loops still scalar, see :func:`network`;
``python benchmarks/evaluation.py``, docs/ai.md).
"""

from __future__ import annotations

import numpy as np

from ai.kernel import tables as t
from ai.kernel.egdb import compact
from ai.kernel.jit import lowest_bit, njit
from ai.kernel.patterns import reverse32
from ai.patterns.network import B1_AT, B2_AT, B3_AT, H1, H2, OUT_SCALE, SHIFT, W1_AT, W2_AT, W3_AT

_at = np.uint64
"""An index into the constant table, unsigned (see :func:`network`)."""


@njit
def network(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> int:
    """The network's value for the side to move, in hundredths of a man.

    Two things make the compiled loops fast (``python benchmarks/evaluation.py``):

    - every index into the table is unsigned (``_at``): numba checks a signed index for a negative value to count
      from the end, and with that check on each word the loops read the table through gather instructions, word by
      word (553 ns an evaluation with signed indexes, 465 ns with unsigned ones);
    - the loops over a layer's units run to a count the compiler cannot know in advance (``n1``, ``n2``: the length
      of a slice of the table, ``H1`` and ``H2`` in fact). A loop of a known 32 turns is unrolled whole before LLVM's
      vectorizer sees it, and the unrolled code stays scalar because nothing proves that the sums and the table do
      not overlap; a loop of an unknown count is vectorized, with that check made once at run time (408 ns an
      evaluation with the counts known, 227 ns with them unknown and one array for both layers' sums).
    """
    base = k[t.NETWORK_AT]
    b1 = k[base + B1_AT : base + B1_AT + H1]
    n1, n2 = _at(b1.size), _at(k[base + B2_AT : base + B2_AT + H2].size)
    sums = np.empty(H1 + H2, dtype=np.int64)
    a1, a2 = sums[:H1], sums[H1:].view(np.int32)  # the second layer adds in 32 bits (see the module's docstring)
    for u in range(n1):
        a1[u] = b1[u]
    for u in range(n2):
        a2[u] = 0
    for plane in range(4):
        side = me if plane < 2 else opp
        mask = compact(side & kings) if plane % 2 else compact(side & ~kings)
        if not black:
            mask = reverse32(mask)
        while mask:
            bit = lowest_bit(mask)
            mask &= mask - 1
            row = _at(base + W1_AT + (32 * plane + bit) * H1)
            for u in range(n1):
                a1[u] += k[row + u]
    w2 = k.view(np.int32)
    for j in range(H1):
        x = a1[j]
        if x > 0:
            x32 = np.int32(x)
            row = _at(2 * (base + W2_AT) + j * H2)
            for u in range(n2):
                a2[u] += x32 * w2[row + u]
    out = 0
    for u in range(H2):
        y = (a2[u] >> SHIFT) + k[_at(base + B2_AT + u)]
        if y > 0:
            out += y * k[_at(base + W3_AT + u)]
    out = (out >> SHIFT) + k[_at(base + B3_AT)]
    return int((out * OUT_SCALE) >> SHIFT)
