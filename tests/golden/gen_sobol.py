"""Golden cases of the sobol family: SobolSample (tf.math.sobol_sample),
as TensorFlow 2.21 runs it.

    $(tools/tf_env) tests/golden/gen_sobol.py

(The direction numbers themselves come from gen_sobol_table.py, which
checks every dimension against TensorFlow; these cases check dfx's kernel.)

- float and double; dimensions 1, 2, 10, 1111, 5000 and 21200 (the
  largest), inputs as constants and as fed placeholders; skip 0, small and
  large, num_results from 1 to past TensorFlow's 512-row blocks. Wide
  outputs are fetched through a strided slice of their columns (every
  dimension's primitive polynomial degree up to 18 is among them) to keep
  the cases small; every value must equal TensorFlow's exactly.
- Points past 2^30: TensorFlow's normalizer 1 / (1 << 31) overflows and
  its values come out negated, from skip + num_results + 1 >= 2^30 on
  (checked with at most 512 rows, one block of TensorFlow's, whose result
  does not depend on its thread count: see kernels/random/
  sobol_kernels.cc), up to the largest skip TensorFlow allows.
- Errors (InvalidArgument): dim below 1 or above 21200, num_results below
  1, skip negative, num_results + skip not below 2^31 - 1.

Not here, and why:
- A non-scalar dim, num_results or skip fed through a placeholder of
  unknown shape: TensorFlow's kernel reads a scalar without checking and
  aborts; dfx returns InvalidArgument (tests/kernels/sobol_test.cc, which
  also checks the shape function's rank checks).
- Empty outputs: num_results and dim must be at least 1.

Besides the cases the generator writes the op's signature
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/sobol_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf  # noqa: E402

FAMILY = "sobol"
OP_NAMES = ["SobolSample"]
RAW = tf.raw_ops
EXACT = dict(rtol=0.0, atol=0.0)
DTYPES = {"f32": tf.float32, "f64": tf.float64}


def sobol_case(name, dim, num_results, skip, dtype, fed=False, stride=1,
               first_col=0, exact=True):
    def build():
        feeds = {}
        args = []
        for i, value in enumerate((dim, num_results, skip)):
            if fed:
                ph, v = placeholder(np.int32(value), name="in%d" % i)
                feeds[ph] = v
                args.append(ph)
            else:
                args.append(tf.constant(value, tf.int32))
        out = RAW.SobolSample(dim=args[0], num_results=args[1], skip=args[2],
                              dtype=DTYPES[dtype])
        if stride != 1 or first_col != 0:
            out = out[:, first_col::stride]
        return [out], feeds
    golden_lib.case(FAMILY, name, build, **(EXACT if exact else {}))


def main():
    for dtype in ("f32", "f64"):
        sobol_case("dim1_" + dtype, 1, 40, 0, dtype)
        sobol_case("dim2_" + dtype, 2, 33, 0, dtype)
        sobol_case("dim2_skip5_" + dtype, 2, 17, 5, dtype)
        sobol_case("dim10_" + dtype, 10, 64, 0, dtype)
        sobol_case("dim10_skip1000_fed_" + dtype, 10, 25, 1000, dtype,
                   fed=True)
        sobol_case("dim10_one_row_skip_" + dtype, 10, 1, 123456, dtype)
        sobol_case("dim1111_" + dtype, 1111, 3, 7, dtype, stride=11)
        sobol_case("dim5000_fed_" + dtype, 5000, 4, 100, dtype, fed=True,
                   stride=41, first_col=3)
        sobol_case("dim21200_" + dtype, 21200, 3, 0, dtype, stride=97)
        sobol_case("dim21200_tail_skip_" + dtype, 21200, 2, 999999, dtype,
                   stride=1, first_col=21100)
        # More rows than one of TensorFlow's blocks (512), so its threads
        # split them; every block reaches the same values.
        sobol_case("dim2_many_rows_" + dtype, 2, 600, 77, dtype)
        # Large skips: 30 binary digits, and from 2^30 on TensorFlow's
        # negated values.
        sobol_case("skip_below_2p30_" + dtype, 3, 1, 2**30 - 3, dtype)
        sobol_case("skip_reaches_2p30_" + dtype, 3, 2, 2**30 - 2, dtype)
        sobol_case("skip_across_2p30_fed_" + dtype, 4, 20, 2**30 - 10, dtype,
                   fed=True)
        sobol_case("rows_across_2p30_" + dtype, 2, 300, 2**30 - 200, dtype)
        sobol_case("skip_largest_" + dtype, 5, 1, 2**31 - 3, dtype)
        sobol_case("dim21200_skip_2p30_" + dtype, 21200, 1, 2**30 + 12345,
                   dtype, stride=101)

    errors = [
        ("err_dim_zero", 0, 3, 0),
        ("err_dim_negative", -4, 3, 0),
        ("err_dim_too_large", 21201, 3, 0),
        ("err_num_results_zero", 2, 0, 0),
        ("err_num_results_negative", 2, -1, 0),
        ("err_skip_negative", 2, 3, -1),
        ("err_overflow_skip", 2, 1, 2**31 - 2),
        ("err_overflow_num_results", 2, 2**31 - 1, 0),
        ("err_overflow_sum", 2, 2**30 - 1, 2**30),
    ]
    for name, dim, num_results, skip in errors:
        # Fed, so that no shape function sees a negative dimension.
        sobol_case(name, dim, num_results, skip, "f32", fed=True)
    sobol_case("err_dim_too_large_f64", 21201, 1, 0, "f64", fed=True)

    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
