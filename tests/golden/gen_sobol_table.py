#!/usr/bin/env python3
"""Writes kernels/random/sobol_table.inc: SobolSample's direction numbers.

TensorFlow's SobolSample draws its direction numbers from Joe and Kuo's
"new-joe-kuo-6.21201" table. This script reads them back out of TensorFlow
2.21 itself, through the op's outputs, and stores them compactly:

  * Point n of the sequence (row n - skip - 1 of SobolSample's output) is,
    per dimension, the XOR of the direction numbers v_k over the set bits k
    of the Gray code n ^ (n >> 1), each v_k = m_k / 2^(k+1) with m_k odd and
    below 2^(k+1). Point 1 is v_0; point 2^j (skip = 2^j - 1, one row) has
    Gray code bits j and j-1, so v_j = x(2^j) ^ v_(j-1). Float64 outputs
    hold these exactly (31 bits at most). From skip = 2^30 - 1 on,
    TensorFlow's outputs come out negated (its 1 << 31 normalizer
    overflows), so the magnitudes are read.
  * Dimension 1 has m_k = 1 throughout. Dimension d >= 2 follows the
    (d-1)-th primitive polynomial over GF(2), counted by degree and, within
    a degree, by increasing interior coefficients a (x^s + a_1 x^(s-1) +
    ... + a_(s-1) x + 1, a_1 the most significant bit of a): Joe and Kuo's
    order. The script checks that every extracted dimension obeys that
    polynomial's recurrence m_i = 2 a_1 m_(i-1) ^ ... ^ 2^(s-1) a_(s-1)
    m_(i-s+1) ^ 2^s m_(i-s) ^ m_(i-s) for all 31 digits.
  * So only the initial m_1..m_s of each dimension are stored; m_1 is always
    1 and m_i (i >= 2) takes i - 1 bits as (m_i - 1) / 2. The bits of
    dimensions 2, 3, ... follow each other, least significant bit first,
    in one stream (about 344 KiB; xz cannot shrink it), written base64 in a
    raw string literal (kernels/random/sobol_kernels.cc decodes it once).

Afterwards the script decodes what it wrote, rebuilds all 31 digits of all
21200 dimensions and compares them with TensorFlow's, and compares sampled
outputs (float32 and float64, all dimensions) with TensorFlow's own.

Run: $(tools/tf_env) tests/golden/gen_sobol_table.py   (about a minute)
"""

import base64
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

MAX_DIM = 21200  # TensorFlow's "dim must be at most 21200"
DIGITS = 31
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "kernels", "random", "sobol_table.inc")


def extract_m():
    """m[d][k], k = 0..30, for every dimension, from TensorFlow's outputs."""
    xs = []
    for j in range(DIGITS):
        x = tf.raw_ops.SobolSample(dim=MAX_DIM, num_results=1,
                                   skip=2**j - 1, dtype=tf.float64)
        x = x.numpy()[0]
        xs.append(np.rint(np.abs(x) * 2.0**DIGITS).astype(np.int64))
    v = [xs[0]]
    for j in range(1, DIGITS):
        v.append(xs[j] ^ v[j - 1])
    m = np.zeros((MAX_DIM, DIGITS), dtype=np.int64)
    for k in range(DIGITS):
        shift = DIGITS - k - 1
        assert np.all(v[k] % (1 << shift) == 0), k
        m[:, k] = v[k] >> shift
        assert np.all(m[:, k] & 1 == 1) and np.all(m[:, k] < (1 << (k + 1))), k
    return m.tolist()


def _mulmod(a, b, p, s):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if (a >> s) & 1:
            a ^= p
    return r


def _powmod(e, p, s):
    r, b = 1, 2
    while e:
        if e & 1:
            r = _mulmod(r, b, p, s)
        e >>= 1
        b = _mulmod(b, b, p, s)
    return r


def _prime_factors(n):
    out, q = [], 2
    while q * q <= n:
        if n % q == 0:
            out.append(q)
            while n % q == 0:
                n //= q
        q += 1
    if n > 1:
        out.append(n)
    return out


def primitive_polynomials(s):
    """Interior coefficients a of the primitive polynomials of degree s."""
    if s == 1:
        return [0]
    order = (1 << s) - 1
    factors = _prime_factors(order)
    out = []
    for a in range(1 << (s - 1)):
        p = (1 << s) | (a << 1) | 1
        if bin(p).count("1") % 2 == 0:  # divisible by x + 1
            continue
        y = 2
        for _ in range(s):  # x^(2^s) == x mod p: the order of x divides 2^s-1
            y = _mulmod(y, y, p, s)
        if y != 2:
            continue
        if all(_powmod(order // q, p, s) != 1 for q in factors):
            out.append(a)
    return out


def polynomial_list(count):
    polys, s = [], 1
    while len(polys) < count:
        polys += [(s, a) for a in primitive_polynomials(s)]
        s += 1
    return polys[:count]


def expand(s, a, initial):
    m = list(initial)
    for i in range(s, DIGITS):
        v = m[i - s] ^ (m[i - s] << s)
        for k in range(1, s):
            if (a >> (s - 1 - k)) & 1:
                v ^= m[i - k] << k
        m.append(v)
    return m


def pack(m, polys):
    bits = []
    for d in range(1, MAX_DIM):
        s, _ = polys[d - 1]
        assert m[d][0] == 1
        for i in range(1, s):  # m_(i+1): i bits of (m - 1) / 2
            value = m[d][i] >> 1
            bits.extend((value >> b) & 1 for b in range(i))
    data = np.packbits(np.array(bits, dtype=np.uint8), bitorder="little")
    return data.tobytes(), len(bits)


def unpack(data, polys):
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8),
                                              bitorder="little").tolist()
    m, pos = [[1] * DIGITS], 0
    for d in range(1, MAX_DIM):
        s, a = polys[d - 1]
        initial = [1]
        for i in range(1, s):
            value = sum(bits[pos + b] << b for b in range(i))
            pos += i
            initial.append(2 * value + 1)
        m.append(expand(s, a, initial))
    return m


HEADER = """\
// Generated by tests/golden/gen_sobol_table.py from TensorFlow 2.21's
// SobolSample outputs (Joe and Kuo's new-joe-kuo-6.21201 direction
// numbers). Do not edit.
//
// The initial direction numbers m_2..m_s of dimensions 2..%d, each m_i
// as (m_i - 1) / 2 in i - 1 bits, least significant bit first, one
// dimension after another, base64. Dimension d >= 2 uses the (d-1)-th
// primitive polynomial over GF(2) (by degree, then by increasing interior
// coefficients); s is its degree.
"""


def write_inc(data, nbits, per_degree):
    text = base64.b64encode(data).decode()
    lines = [text[i:i + 76] for i in range(0, len(text), 76)]
    with open(OUT, "w") as f:
        f.write(HEADER % MAX_DIM)
        f.write("constexpr int kSobolMaxDim = %d;\n" % MAX_DIM)
        f.write("constexpr int64_t kSobolTableBits = %d;\n" % nbits)
        f.write("// Primitive polynomials of degree 1, 2, ... that the "
                "table uses.\n")
        f.write("constexpr int kSobolPolynomialsPerDegree[] = {%s};\n" %
                ", ".join(str(c) for c in per_degree))
        f.write('constexpr char kSobolTableBase64[] = R"(\n')
        f.write("\n".join(lines))
        f.write('\n)";\n')


def read_inc():
    text = []
    with open(OUT) as f:
        inside = False
        for line in f:
            line = line.strip()
            if line == ')";':
                inside = False
            if inside:
                text.append(line)
            if line.endswith('R"('):
                inside = True
    return base64.b64decode("".join(text))


def emulate(m, dim, num_results, skip, dtype):
    """SobolSample's rows from the direction numbers (skip + num_results + 1
    below 2^30, where TensorFlow's output is not negated)."""
    v = np.array([[m[d][k] << (DIGITS - k - 1) for d in range(dim)]
                                for k in range(DIGITS)], dtype=np.int64)
    rows = []
    for n in range(skip + 1, skip + num_results + 1):
        g, x = n ^ (n >> 1), np.zeros(dim, dtype=np.int64)
        for k in range(DIGITS):
            if (g >> k) & 1:
                x ^= v[k]
        rows.append(x.astype(dtype) * dtype(2.0**-DIGITS))
    return np.array(rows, dtype=dtype)


def main():
    m = extract_m()
    polys = polynomial_list(MAX_DIM - 1)
    for d in range(1, MAX_DIM):
        s, a = polys[d - 1]
        if expand(s, a, m[d][:s]) != m[d]:
            sys.exit("dimension %d does not follow primitive polynomial "
                     "(s=%d, a=%d): the table's order is not Joe and Kuo's" %
                     (d + 1, s, a))
    data, nbits = pack(m, polys)
    per_degree = [0] * polys[-1][0]
    for s, _ in polys:
        per_degree[s - 1] += 1
    write_inc(data, nbits, per_degree)

    # Self-check: what was written reproduces TensorFlow for every dimension.
    assert unpack(read_inc(), polys) == m
    for dtype, tf_dtype in ((np.float64, tf.float64),
                            (np.float32, tf.float32)):
        for num_results, skip in ((3, 0), (2, 1000), (2, 123456789)):
            want = tf.raw_ops.SobolSample(
                dim=MAX_DIM, num_results=num_results, skip=skip,
                dtype=tf_dtype).numpy()
            got = emulate(m, MAX_DIM, num_results, skip, dtype)
            assert np.array_equal(want, got), (dtype, num_results, skip)
    print("wrote %s: %d dims, %d bits (%d bytes), every dimension checked" %
          (OUT, MAX_DIM, nbits, len(data)))


if __name__ == "__main__":
    main()
