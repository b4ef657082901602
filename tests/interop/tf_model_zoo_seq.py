"""A zoo of TensorFlow 2.21 sequence and text models, built small and seeded
at test time with Keras, frozen as a user exports them for serving, and run
in TensorFlow and on dfx: LSTM/GRU classifiers (unidirectional,
Bidirectional, stacked, return_sequences, mask_zero embeddings), a
SimpleRNN, a Conv1D text CNN, a Transformer encoder (MultiHeadAttention,
LayerNormalization, positional embeddings, causal mask), a raw-string text
model (TextVectorization / StringLookup / IntegerLookup / Hashing), a
tf.signal STFT/MFCC audio model and a greedy seq2seq decoder (tf.while_loop
in a tf.function), CTC decoders. Also two training runs in a TensorFlow
client session on a dfx cluster (variables on the ps task): a Keras LSTM
with tf.compat.v1's Adam, and an Embedding(mask_zero) + GRU whose sparse
embedding gradient goes through RMSProp's and Adagrad's sparse updates;
losses compared with TensorFlow's own session (and TensorFlow's servers,
whose ms/step the table shows beside dfx's).

For each model: freezes the inference function
(convert_variables_to_constants_v2, as tests/golden/gen_models.py does),
lists the op types dfx lacks (`dfx ops --graph FILE --json`), runs it with
`dfx run --graph` and `dfx bench` locally (a few also through a TensorFlow
client session on a `dfx cluster up` cluster, as they are and with their
nodes spread over the worker and the ps task), and compares the outputs
with TensorFlow's within a per-model tolerance. Prints a table: model, ops,
nodes, max diff, TF ms/step and dfx ms/step (medians after warm-up, both
measured in this run: side-by-side figures, not pass criteria).

Lookup tables: freezing keeps a Keras lookup layer's table as a captured
resource input (a Placeholder of dtype resource) that no client can feed.
The text models here put the table back into the frozen graph as a
HashTableV2 with its keys and values and an InitializeTableV2 that every
lookup waits for (initializing a table again with the same entries is a
no-op in TensorFlow), so each step of the graph is self-contained.

    $(tools/tf_env) tests/interop/tf_model_zoo_seq.py --dfx build/bin/dfx [--all]
        [--filter TEXT] [--keep DIR] [--iters N] [--no-cluster] [--functional]

--functional freezes with lower_control_flow=False (While/If and their
function library, which dfx inlines) instead of Enter/Switch/Merge frames.

Exit status: 0 when every model matches, 1 otherwise.
"""

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

keras = tf.keras
tf1 = tf.compat.v1


def seed():
    keras.utils.set_random_seed(7)


def rng(n):
    return np.random.default_rng(n)


class Frozen:
    """A frozen model: graph_def, {input name: value}, output names."""

    def __init__(self, graph_def, feeds, fetches, rtol, atol):
        self.graph_def = graph_def
        self.feeds = feeds
        self.fetches = fetches
        self.rtol = rtol
        self.atol = atol


def restore_tables(graph_def, concrete, frozen_inputs, n_user_inputs):
    """Replaces each captured lookup-table handle (a resource Placeholder
    after freezing) with a HashTableV2 initialized in the graph."""
    # The function's placeholder for each captured table handle keeps its
    # name in the frozen graph.
    tables = {}
    for external, internal in concrete.graph.captures:
        for table in _TABLES:
            if external is table.resource_handle:
                tables[internal.op.name] = table
    placeholder_names = [n.split(":")[0] for n in
                         frozen_inputs[n_user_inputs:]]
    by_name = {n.name: n for n in graph_def.node}
    for name in placeholder_names:
        node = by_name.get(name)
        if node is None or node.attr["dtype"].type != tf.resource.as_datatype_enum:
            continue
        table = tables.get(name)
        if table is None:
            raise RuntimeError(f"no table for captured input {name}")
        keys, values = table.export()
        keys, values = keys.numpy(), values.numpy()
        kd, vd = table.key_dtype, table.value_dtype
        node.op = "HashTableV2"
        node.ClearField("attr")
        node.attr["key_dtype"].type = kd.as_datatype_enum
        node.attr["value_dtype"].type = vd.as_datatype_enum
        node.attr["shared_name"].s = f"zoo_{name}".encode()
        node.attr["container"].s = b""
        node.attr["use_node_name_sharing"].b = False
        for suffix, arr, dt in (("keys", keys, kd), ("values", values, vd)):
            c = graph_def.node.add()
            c.name = f"{name}/{suffix}"
            c.op = "Const"
            c.attr["dtype"].type = dt.as_datatype_enum
            c.attr["value"].tensor.CopyFrom(
                tf.make_tensor_proto(arr, dtype=dt))
        init = graph_def.node.add()
        init.name = f"{name}/init"
        init.op = "InitializeTableV2"
        init.input.extend([name, f"{name}/keys", f"{name}/values"])
        init.attr["Tkey"].type = kd.as_datatype_enum
        init.attr["Tval"].type = vd.as_datatype_enum
        for n in graph_def.node:
            if n is init:
                continue
            if any(inp.split(":")[0] == name and not inp.startswith("^")
                   for inp in n.input) and n.op != "InitializeTableV2":
                n.input.append(f"^{name}/init")
    return graph_def


_TABLES = []
# Set by --functional: keep While/If and their function library in the
# frozen graph instead of lowering them to Enter/Switch/Merge frames.
FUNCTIONAL = [False]


def freeze_fn(fn, inputs, rtol, atol):
    specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype)) for x in inputs]
    concrete = tf.function(fn).get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(
        concrete, lower_control_flow=not FUNCTIONAL[0])
    graph_def = frozen.graph.as_graph_def()
    in_names = [t.name for t in frozen.inputs]
    out_names = [t.name for t in frozen.outputs]
    if len(in_names) > len(inputs):
        graph_def = restore_tables(graph_def, concrete, in_names, len(inputs))
        in_names = in_names[:len(inputs)]
    return Frozen(graph_def, dict(zip(in_names, inputs)), out_names, rtol,
                  atol)


def freeze_model(model, inputs, rtol=1e-4, atol=1e-5):
    if len(inputs) > 1:
        return freeze_fn(lambda *xs: model(list(xs), training=False), inputs,
                         rtol, atol)
    return freeze_fn(lambda x: model(x, training=False), inputs, rtol, atol)


def token_ids(n, t, vocab, r, pad=True):
    ids = r.integers(1, vocab, size=(n, t)).astype(np.int32)
    if pad:
        for i in range(n):
            ids[i, r.integers(t // 2, t + 1):] = 0
    return ids


# ---------------------------------------------------------------- models


def lstm_classifier():
    seed()
    m = keras.Sequential([
        keras.Input((12,), dtype="int32"),
        keras.layers.Embedding(50, 16),
        keras.layers.LSTM(24),
        keras.layers.Dense(3, activation="softmax"),
    ])
    return freeze_model(m, [token_ids(4, 12, 50, rng(1), pad=False)])


def lstm_masked_stacked():
    seed()
    m = keras.Sequential([
        keras.Input((12,), dtype="int32"),
        keras.layers.Embedding(50, 16, mask_zero=True),
        keras.layers.LSTM(16, return_sequences=True),
        keras.layers.LSTM(16),
        keras.layers.Dense(2),
    ])
    return freeze_model(m, [token_ids(4, 12, 50, rng(2))])


def bilstm_seq_tagger():
    seed()
    m = keras.Sequential([
        keras.Input((10,), dtype="int32"),
        keras.layers.Embedding(40, 12, mask_zero=True),
        keras.layers.Bidirectional(keras.layers.LSTM(12,
                                                     return_sequences=True)),
        keras.layers.TimeDistributed(keras.layers.Dense(5)),
    ])
    return freeze_model(m, [token_ids(3, 10, 40, rng(3))])


def gru_classifier():
    seed()
    m = keras.Sequential([
        keras.Input((12,), dtype="int32"),
        keras.layers.Embedding(50, 16, mask_zero=True),
        keras.layers.GRU(20),
        keras.layers.Dense(3, activation="softmax"),
    ])
    return freeze_model(m, [token_ids(4, 12, 50, rng(4))])


def bigru_stacked():
    seed()
    m = keras.Sequential([
        keras.Input((10, 8)),
        keras.layers.Bidirectional(keras.layers.GRU(10,
                                                    return_sequences=True)),
        keras.layers.GRU(10, reset_after=False, go_backwards=True),
        keras.layers.Dense(2),
    ])
    x = rng(5).normal(size=(3, 10, 8)).astype(np.float32)
    return freeze_model(m, [x])


def simple_rnn():
    seed()
    m = keras.Sequential([
        keras.Input((15, 6)),
        keras.layers.SimpleRNN(16, return_sequences=True),
        keras.layers.SimpleRNN(8, activation="relu"),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    x = rng(6).normal(size=(4, 15, 6)).astype(np.float32)
    return freeze_model(m, [x])


def text_cnn():
    seed()
    inp = keras.Input((32,), dtype="int32")
    e = keras.layers.Embedding(100, 24)(inp)
    branches = []
    for k in (2, 3, 5):
        h = keras.layers.Conv1D(16, k, activation="relu")(e)
        branches.append(keras.layers.GlobalMaxPooling1D()(h))
    h = keras.layers.Concatenate()(branches)
    h = keras.layers.Dropout(0.5)(h)
    out = keras.layers.Dense(4, activation="softmax")(h)
    m = keras.Model(inp, out)
    return freeze_model(m, [token_ids(8, 32, 100, rng(7), pad=False)])


class PositionalEmbedding(keras.layers.Layer):

    def __init__(self, vocab, seq, dim):
        super().__init__()
        self.tok = keras.layers.Embedding(vocab, dim)
        self.pos = keras.layers.Embedding(seq, dim)

    def call(self, x):
        positions = tf.range(tf.shape(x)[-1])
        return self.tok(x) + self.pos(positions)


def transformer_encoder():
    seed()
    seq, dim, vocab = 16, 32, 60
    inp = keras.Input((seq,), dtype="int32")
    h = PositionalEmbedding(vocab, seq, dim)(inp)
    for _ in range(2):
        a = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(
            h, h, use_causal_mask=True)
        h = keras.layers.LayerNormalization(epsilon=1e-6)(h + a)
        f = keras.layers.Dense(64, activation="gelu")(h)
        f = keras.layers.Dense(dim)(f)
        h = keras.layers.LayerNormalization(epsilon=1e-6)(h + f)
    out = keras.layers.Dense(vocab)(h)
    m = keras.Model(inp, out)
    return freeze_model(m, [token_ids(4, seq, vocab, rng(8), pad=False)],
                        rtol=1e-4, atol=1e-4)


WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "fast", "a", "red",
         "ball", "and", "big", "house"]


def sentences(n, r):
    out = []
    for _ in range(n):
        k = int(r.integers(2, 9))
        ws = [WORDS[int(i)] if i < len(WORDS) else "zzz%d" % i
              for i in r.integers(0, len(WORDS) + 3, size=k)]
        out.append(" ".join(w.upper() if j == 0 else w
                            for j, w in enumerate(ws)) + ".")
    return np.array(out, dtype=object)


def text_vectorization():
    """Raw strings in: TextVectorization (lowercasing, punctuation strip,
    whitespace split, StringLookup), Embedding, pooling."""
    seed()
    tv = keras.layers.TextVectorization(max_tokens=20,
                                        output_sequence_length=10)
    tv.adapt(sentences(40, rng(9)))
    _TABLES.append(tv._lookup_layer.lookup_table)
    emb = keras.layers.Embedding(22, 8)
    dense = keras.layers.Dense(3)
    emb.build((None, 10))
    dense.build((None, 8))

    def fn(x):
        ids = tv(x)
        return dense(tf.reduce_mean(emb(ids), axis=1)), ids

    x = sentences(5, rng(10))
    return freeze_fn(fn, [x], 1e-5, 1e-6)


def lookup_hashing():
    """StringLookup + IntegerLookup + Hashing on a ragged batch of tokens
    (tf.strings.split), to a dense multi-hot feature and a Dense layer."""
    seed()
    sl = keras.layers.StringLookup(vocabulary=WORDS[:8], num_oov_indices=2)
    il = keras.layers.IntegerLookup(vocabulary=[3, 7, 11, 42, 99])
    hs = keras.layers.Hashing(num_bins=16, salt=[5, 9])
    hs2 = keras.layers.Hashing(num_bins=8)
    _TABLES.extend([sl.lookup_table, il.lookup_table])
    dense = keras.layers.Dense(4)
    dense.build((None, 10 + 6 + 16 + 8))

    def fn(text, codes):
        words = tf.strings.split(tf.strings.lower(text))  # ragged
        ids = tf.ragged.map_flat_values(sl, words)
        hot = tf.reduce_sum(tf.one_hot(ids, 10), axis=1)
        code_hot = tf.reduce_sum(tf.one_hot(il(codes), 6), axis=1)
        h1 = tf.reduce_sum(tf.one_hot(
            tf.ragged.map_flat_values(hs, words), 16), axis=1)
        h2 = tf.reduce_sum(tf.one_hot(hs2(codes), 8), axis=1)
        feats = tf.concat([hot, code_hot, h1, h2], axis=1)
        return dense(feats), ids.to_tensor(default_value=-1)

    text = np.array([s[:-1] for s in sentences(4, rng(11))], dtype=object)
    codes = np.array([[3, 5, 42], [99, 7, 0], [11, 11, 1], [8, 42, 3]],
                     dtype=np.int64)
    return freeze_fn(fn, [text, codes], 1e-5, 1e-6)


def stft_mfcc():
    """tf.signal: STFT, magnitude, mel filterbank, log, MFCCs, a small
    Conv1D classifier on top."""
    seed()
    conv = keras.layers.Conv1D(8, 3, activation="relu")
    dense = keras.layers.Dense(2)
    conv.build((None, None, 13))
    dense.build((None, 8))
    mel = tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 40.0, 3800.0)

    def fn(audio):
        st = tf.signal.stft(audio, frame_length=256, frame_step=128,
                            fft_length=256)
        mag = tf.abs(st)
        mels = tf.tensordot(mag, mel, 1)
        logm = tf.math.log(mels + 1e-6)
        mfcc = tf.signal.mfccs_from_log_mel_spectrograms(logm)[..., :13]
        h = tf.reduce_max(conv(mfcc), axis=1)
        return dense(h), mfcc

    t = np.arange(4000) / 8000.0
    r = rng(12)
    audio = np.stack([np.sin(2 * np.pi * f * t) + 0.1 * r.normal(size=t.size)
                      for f in (220.0, 880.0)]).astype(np.float32)
    return freeze_fn(fn, [audio], 1e-3, 1e-3)


def seq2seq_greedy():
    """A GRU encoder and a greedy decoder: one GRUCell step per iteration of
    a tf.while_loop, argmax feeding the next step, until every sequence
    has emitted the end token or max_len."""
    seed()
    vocab, dim, units, max_len, end = 30, 12, 16, 10, 1
    emb = keras.layers.Embedding(vocab, dim)
    enc = keras.layers.GRU(units, return_state=True)
    cell = keras.layers.GRUCell(units)
    proj = keras.layers.Dense(vocab)
    emb.build((None,))
    cell.build((None, dim))
    proj.build((None, units))
    enc.build((None, None, dim))

    def fn(src):
        _, state = enc(emb(src))
        batch = tf.shape(src)[0]
        tok = tf.fill([batch], 2)
        out = tf.TensorArray(tf.int32, size=max_len)
        done = tf.zeros([batch], tf.bool)

        def cond(i, tok, state, out, done):
            return tf.logical_and(i < max_len,
                                  tf.logical_not(tf.reduce_all(done)))

        def body(i, tok, state, out, done):
            h, new_state = cell(emb(tok), [state])
            nxt = tf.argmax(proj(h), axis=-1, output_type=tf.int32)
            nxt = tf.where(done, tf.zeros_like(nxt), nxt)
            return (i + 1, nxt, new_state[0], out.write(i, nxt),
                    tf.logical_or(done, tf.equal(nxt, end)))

        i, _, state, out, _ = tf.while_loop(
            cond, body, [tf.constant(0), tok, state, out, done])
        return tf.transpose(out.stack()[:i]), state

    src = token_ids(3, 7, vocab, rng(13), pad=False)
    return freeze_fn(fn, [src], 1e-4, 1e-5)


def ctc_decoders():
    """A BiLSTM acoustic model's logits through CTC: greedy and beam search
    decoding (sparse outputs made dense) and the CTC loss of given labels."""
    seed()
    frames, feats, classes = 20, 10, 6
    m = keras.Sequential([
        keras.Input((frames, feats)),
        keras.layers.Bidirectional(keras.layers.LSTM(8,
                                                     return_sequences=True)),
        keras.layers.Dense(classes),
    ])
    r = rng(14)
    x = r.normal(size=(3, frames, feats)).astype(np.float32)
    lengths = np.array([20, 15, 9], np.int32)
    labels = r.integers(1, classes - 1, size=(3, 4)).astype(np.int32)

    def fn(x, lengths, labels):
        logits = tf.transpose(m(x, training=False), [1, 0, 2])
        (greedy,), _ = tf.nn.ctc_greedy_decoder(logits, lengths)
        beams, probs = tf.nn.ctc_beam_search_decoder(logits, lengths,
                                                     beam_width=4,
                                                     top_paths=2)
        loss = tf.nn.ctc_loss(labels, logits, tf.fill([3], 4), lengths,
                              logits_time_major=True, blank_index=-1)
        return (tf.sparse.to_dense(greedy, default_value=-1),
                tf.sparse.to_dense(beams[0], default_value=-1),
                tf.sparse.to_dense(beams[1], default_value=-1), probs, loss)

    return freeze_fn(fn, [x, lengths, labels], 1e-4, 1e-4)


def tfidf_ngrams():
    """TextVectorization with bigrams to TF-IDF and multi-hot outputs
    (StringNGrams, bincounts), a CategoryEncoding and a Discretization."""
    seed()
    tf_idf = keras.layers.TextVectorization(max_tokens=30, ngrams=2,
                                            output_mode="tf_idf")
    hot = keras.layers.TextVectorization(max_tokens=25,
                                         output_mode="multi_hot")
    data = sentences(60, rng(15))
    tf_idf.adapt(data)
    hot.adapt(data)
    _TABLES.extend([tf_idf._lookup_layer.lookup_table,
                    hot._lookup_layer.lookup_table])
    disc = keras.layers.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 2.0])
    cat = keras.layers.CategoryEncoding(num_tokens=5, output_mode="count")
    dense = keras.layers.Dense(2)
    dense.build((None, tf_idf.vocabulary_size() + hot.vocabulary_size() + 5))

    def fn(text, values):
        feats = tf.concat([tf_idf(text), tf.cast(hot(text), tf.float32),
                           tf.cast(cat(disc(values)), tf.float32)],
                          axis=1)
        return dense(feats), feats

    values = rng(16).normal(size=(5, 7)).astype(np.float32)
    return freeze_fn(fn, [sentences(5, rng(17)), values], 1e-5, 1e-5)


def lstm_bf16():
    """A mixed_bfloat16 LSTM classifier: bfloat16 matmuls and activations,
    float32 variables."""
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        seed()
        m = keras.Sequential([
            keras.Input((12,), dtype="int32"),
            keras.layers.Embedding(50, 16),
            keras.layers.LSTM(16),
            keras.layers.Dense(3),
            keras.layers.Activation("softmax", dtype="float32"),
        ])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    return freeze_model(m, [token_ids(4, 12, 50, rng(18), pad=False)],
                        rtol=2e-2, atol=2e-2)


def lstm_large():
    """Sized for timing: batch 32, 50 steps, 128 units."""
    seed()
    m = keras.Sequential([
        keras.Input((50,), dtype="int32"),
        keras.layers.Embedding(1000, 64, mask_zero=True),
        keras.layers.LSTM(128),
        keras.layers.Dense(10),
    ])
    return freeze_model(m, [token_ids(32, 50, 1000, rng(19))],
                        rtol=1e-4, atol=1e-4)


def gru_large():
    seed()
    m = keras.Sequential([
        keras.Input((50, 64)),
        keras.layers.GRU(128, return_sequences=True),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(10),
    ])
    x = rng(22).normal(size=(32, 50, 64)).astype(np.float32)
    return freeze_model(m, [x], rtol=1e-4, atol=1e-4)


def transformer_large():
    """Sized for timing: batch 16, 64 tokens, width 128, 4 heads, 2 blocks."""
    seed()
    seq, dim, vocab = 64, 128, 500
    inp = keras.Input((seq,), dtype="int32")
    h = PositionalEmbedding(vocab, seq, dim)(inp)
    for _ in range(2):
        a = keras.layers.MultiHeadAttention(num_heads=4, key_dim=32)(
            h, h, use_causal_mask=True)
        h = keras.layers.LayerNormalization(epsilon=1e-6)(h + a)
        f = keras.layers.Dense(256, activation="gelu")(h)
        f = keras.layers.Dense(dim)(f)
        h = keras.layers.LayerNormalization(epsilon=1e-6)(h + f)
    out = keras.layers.Dense(vocab)(h)
    m = keras.Model(inp, out)
    return freeze_model(m, [token_ids(16, seq, vocab, rng(23), pad=False)],
                        rtol=1e-3, atol=1e-3)


def stft_large():
    """Sized for timing: 8 clips of 1 s at 16 kHz, 512-point STFT, MFCCs."""
    mel = tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 7600.0)

    def fn(audio):
        st = tf.signal.stft(audio, frame_length=400, frame_step=160,
                            fft_length=512)
        logm = tf.math.log(tf.tensordot(tf.abs(st), mel, 1) + 1e-6)
        return tf.signal.mfccs_from_log_mel_spectrograms(logm)[..., :13]

    audio = rng(24).normal(size=(8, 16000)).astype(np.float32)
    return freeze_fn(fn, [audio], 1e-3, 1e-3)


def string_ops():
    """Byte- and Unicode-level text features on raw strings: unicode split
    and decode, character n-grams, substrings, regex matches, hashed
    n-gram buckets, ragged reductions and a sparse embedding lookup."""
    seed()
    table = rng(25).normal(size=(64, 6)).astype(np.float32)

    def fn(text):
        lower = tf.strings.lower(text, encoding="utf-8")
        chars = tf.strings.unicode_split(lower, "UTF-8")
        codes = tf.strings.unicode_decode(lower, "UTF-8")
        grams = tf.strings.ngrams(chars, 3, separator="")
        buckets = tf.strings.to_hash_bucket_fast(grams, 64)
        emb = tf.nn.embedding_lookup_sparse(
            table, buckets.to_sparse(), None, combiner="sqrtn")
        words = tf.strings.split(lower)
        word_len = tf.strings.length(words, unit="UTF8_CHAR")
        caps = tf.strings.regex_full_match(text, r"[A-Z].*")
        head = tf.strings.substr(text, 0, 3, unit="UTF8_CHAR")
        joined = tf.strings.reduce_join(words, axis=-1, separator="_")
        strong = tf.strings.to_hash_bucket_strong(words, 100, [1, 2])
        return (emb, tf.reduce_max(word_len, axis=1),
                tf.reduce_sum(codes, axis=1), caps, head, joined,
                strong.to_tensor(-1), grams.to_tensor(""))

    text = np.array(["Grüße aus Köln", "the cat sat", "Ünïcödé wörds ok",
                     "ab", "", "A longer sentence with several words"],
                    dtype=object)
    return freeze_fn(fn, [text], 1e-5, 1e-6)


def attention_layers():
    """Keras Attention (dot, scaled), AdditiveAttention with masks, a
    ConvLSTM1D and a GRU over the attended sequence."""
    seed()
    q_in = keras.Input((7, 8))
    v_in = keras.Input((9, 8))
    att = keras.layers.Attention(use_scale=True, score_mode="dot")(
        [q_in, v_in])
    add = keras.layers.AdditiveAttention()([q_in, v_in])
    h = keras.layers.Concatenate()([att, add])
    h = keras.layers.GRU(6, return_sequences=True)(h)
    c = keras.layers.Reshape((7, 6, 1))(h)
    c = keras.layers.ConvLSTM1D(3, 2, padding="same")(c)
    out = keras.layers.Dense(2)(keras.layers.Flatten()(c))
    m = keras.Model([q_in, v_in], out)
    r = rng(26)
    q = r.normal(size=(3, 7, 8)).astype(np.float32)
    v = r.normal(size=(3, 9, 8)).astype(np.float32)
    return freeze_model(m, [q, v])


def signal_roundtrip():
    """tf.signal: framing with padding, windows, inverse STFT (overlap and
    add), real FFTs of odd and even lengths, a DCT and its inverse."""

    def fn(audio):
        st = tf.signal.stft(audio, 64, 16, window_fn=tf.signal.hann_window,
                            pad_end=True)
        back = tf.signal.inverse_stft(
            st, 64, 16,
            window_fn=tf.signal.inverse_stft_window_fn(16))
        frames = tf.signal.frame(audio, 50, 30, pad_end=True, pad_value=0.5)
        odd = tf.signal.irfft(tf.signal.rfft(frames, [49]), [49])
        dct = tf.signal.dct(frames, type=2, norm="ortho")
        idct = tf.signal.idct(dct, type=2, norm="ortho")
        return back, odd, idct, tf.abs(st)

    audio = rng(27).normal(size=(2, 600)).astype(np.float32)
    return freeze_fn(fn, [audio], 1e-4, 1e-4)


def lookup_modes():
    """Lookup layers' other modes: StringLookup inverted (an int64 to
    string table) and one-hot, IntegerLookup with a mask token and counts,
    character-split TextVectorization with Unicode punctuation, Hashing
    with a mask value and HashedCrossing."""
    seed()
    inv = keras.layers.StringLookup(vocabulary=WORDS[:9], invert=True)
    onehot = keras.layers.StringLookup(vocabulary=WORDS[:6],
                                       output_mode="one_hot")
    counts = keras.layers.IntegerLookup(vocabulary=[4, 8, 15, 16, 23],
                                        mask_token=0, output_mode="count")
    chars = keras.layers.TextVectorization(split="character",
                                           output_sequence_length=12)
    chars.adapt(np.array(["¡Hola, señor!", "Grüße — «Köln»", "abc; def"],
                         dtype=object))
    masked_hash = keras.layers.Hashing(num_bins=5, mask_value="")
    cross = keras.layers.HashedCrossing(num_bins=7)
    _TABLES.extend([inv.lookup_table, onehot.lookup_table,
                    counts.lookup_table, chars._lookup_layer.lookup_table])

    def fn(ids, words, codes, text):
        return (inv(ids), onehot(words), counts(codes), chars(text),
                masked_hash(words), cross((words, codes[:, :1])))

    r = rng(28)
    ids = r.integers(0, 11, size=(4, 3)).astype(np.int64)
    words = np.array([["cat"], ["zebra"], [""], ["mat"]], dtype=object)
    codes = np.array([[4, 0, 99], [8, 8, 15], [0, 0, 0], [23, 16, 4]],
                     dtype=np.int64)
    text = np.array(["¿Qué tal?", "Köln «Dom»", "", "x;y"], dtype=object)
    return freeze_fn(fn, [ids, words, codes, text], 1e-6, 1e-6)


# (name, builder, in the default set, also run on a cluster)
MODELS = [
    ("lstm_classifier", lstm_classifier, True, True),
    ("lstm_masked_stacked", lstm_masked_stacked, True, False),
    ("bilstm_seq_tagger", bilstm_seq_tagger, True, False),
    ("gru_classifier", gru_classifier, True, True),
    ("bigru_stacked", bigru_stacked, False, False),
    ("simple_rnn", simple_rnn, True, False),
    ("text_cnn", text_cnn, True, False),
    ("transformer_encoder", transformer_encoder, True, True),
    ("text_vectorization", text_vectorization, True, True),
    ("lookup_hashing", lookup_hashing, False, False),
    ("stft_mfcc", stft_mfcc, True, False),
    ("seq2seq_greedy", seq2seq_greedy, True, True),
    ("ctc_decoders", ctc_decoders, True, False),
    ("tfidf_ngrams", tfidf_ngrams, False, False),
    ("lookup_modes", lookup_modes, False, False),
    ("string_ops", string_ops, False, False),
    ("attention_layers", attention_layers, False, False),
    ("signal_roundtrip", signal_roundtrip, False, False),
    ("lstm_bf16", lstm_bf16, False, False),
    ("lstm_large", lstm_large, False, False),
    ("gru_large", gru_large, False, False),
    ("transformer_large", transformer_large, False, False),
    ("stft_large", stft_large, False, False),
]

# ----------------------------------------------------------------- running


def tf_session_run(graph_def, feeds, fetches, target="", iters=0):
    """Runs graph_def in a tf.compat.v1 session on target; returns
    (outputs, median ms/step of iters steps after 2 warm-up steps)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    config = tf1.ConfigProto(operation_timeout_in_ms=120000)
    with tf1.Session(target, graph=graph, config=config) as sess:
        outs = sess.run(fetches, feeds)
        # A callable skips most of Session.run's Python overhead per step.
        names = list(feeds)
        step = sess.make_callable(fetches, names)
        values = [feeds[n] for n in names]
        times = []
        for i in range(iters + 2 if iters else 0):
            t0 = time.perf_counter()
            step(*values)
            if i >= 2:
                times.append((time.perf_counter() - t0) * 1e3)
    return outs, (statistics.median(times) if times else None)


def feed_flags(feeds, work):
    flags = []
    for i, (name, value) in enumerate(feeds.items()):
        if value.dtype == object:
            flags += ["--feed", f"{name}=" + json.dumps(
                [v.decode() if isinstance(v, bytes) else v
                 for v in value.tolist()])]
        else:
            path = os.path.join(work, f"feed{i}.npy")
            np.save(path, value)
            flags += ["--feed", f"{name}=@{path}"]
    return flags


def max_diff(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return None, f"shape {got.shape} != {want.shape}"
    if want.dtype.kind in "OSU":
        return (0.0 if np.array_equal(got, want) else float("inf")), ""
    if got.size == 0:
        return 0.0, ""
    return float(np.max(np.abs(got.astype(np.float64) -
                               want.astype(np.float64)))), ""


def compare(outs, want, rtol, atol):
    """(max abs diff, error text or '')."""
    worst = 0.0
    for g, w in zip(outs, want):
        d, err = max_diff(g, w)
        if err:
            return None, err
        worst = max(worst, d)
        if w.dtype.kind in "fc" and not np.allclose(
                g, w, rtol=rtol, atol=atol, equal_nan=True):
            return worst, f"beyond rtol {rtol} atol {atol}"
        if w.dtype.kind not in "fc" and d != 0:
            return worst, "not equal"
    return worst, ""


def run_dfx(dfx, graph_path, frozen, work, iters, extra):
    flags = feed_flags(frozen.feeds, work)
    fetch_flags = []
    for f in frozen.fetches:
        fetch_flags += ["--fetch", f]
    run = subprocess.run([dfx, "run", "--graph", graph_path, *extra, *flags,
                          *fetch_flags, "--json"], capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0:
        return None, None, run.stderr.strip().splitlines()[-1:] or ["?"]
    printed = json.loads(run.stdout)
    outs = [json_value(printed[f]) for f in frozen.fetches]
    bench = subprocess.run([dfx, "bench", "--graph", graph_path, *extra,
                            *flags,
                            *fetch_flags, "--iters", str(iters), "--warmup",
                            "2", "--json"], capture_output=True, text=True,
                           timeout=300)
    ms = None
    if bench.returncode == 0:
        ms = json.loads(bench.stdout)["latency_us"]["p50"] / 1e3
    return outs, ms, []


def json_value(printed):
    """The numpy array of one fetch of `dfx run --json`."""
    dtype = printed["dtype"]
    values = printed["values"]
    if dtype == "string":
        encode = np.vectorize(lambda v: v.encode(), otypes=[object])
        arr = np.array(values, dtype=object)
        return encode(arr) if arr.size else arr.reshape(printed["shape"])
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    if dtype.startswith("float"):
        arr = np.array(values, dtype=object)
        arr = np.vectorize(lambda v: special.get(v, v) if isinstance(v, str)
                           else v, otypes=[np.float64])(arr) \
            if arr.size else arr
        return arr.astype(dtype).reshape(printed["shape"])
    return np.array(values, dtype=dtype).reshape(printed["shape"])


def missing_ops(dfx, graph_path):
    res = subprocess.run([dfx, "ops", "--graph", graph_path, "--json"],
                         capture_output=True, text=True, timeout=60)
    try:
        report = json.loads(res.stdout)
    except json.JSONDecodeError:
        return ["? " + res.stderr.strip()[:200]]
    out = []
    for row in report.get("ops", []):
        if not row.get("ok", False):
            nodes = row.get("nodes_without_kernel") or []
            out.append(row["op"] + ("" if row.get("registered") else
                                    " (no op)") +
                       (f" (no kernel: {', '.join(nodes[:2])})" if nodes
                        else ""))
    return out


def fix_strings(outs):
    fixed = []
    for o in outs:
        o = np.asarray(o)
        if o.dtype.kind in "OS":
            o = np.vectorize(lambda v: v if isinstance(v, bytes)
                             else str(v).encode(), otypes=[object])(o) \
                if o.size else o.astype(object)
        fixed.append(o)
    return fixed


# ----------------------------------------------------------------- training


def training(kind, target, steps=8):
    """Losses and median ms/step of `steps` training steps in a
    tf.compat.v1 graph on target, from fixed initial weights. On a cluster
    the variables live on the ps task and the steps run on the worker.
    kind "lstm_adam": a Keras LSTM classifier on dense inputs, Adam.
    kind "embedding_gru_sparse": Embedding(mask_zero) + GRU, whose
    embedding gradient is sparse (IndexedSlices: the optimizers' sparse
    updates), with RMSProp and Adagrad on alternate variables."""
    graph = tf.Graph()
    r = rng(20)
    placement = (tf1.train.replica_device_setter(
        ps_tasks=1, worker_device="/job:worker/task:0") if target
        else contextlib.nullcontext())
    with graph.as_default(), (tf1.device(placement) if target else placement):
        tf1.set_random_seed(3)
        y = tf1.placeholder(tf.int32, [8], name="y")
        y_val = r.integers(0, 3, size=(8,)).astype(np.int32)
        if kind == "lstm_adam":
            x = tf1.placeholder(tf.float32, [8, 6, 4], name="x")
            x_val = r.normal(size=(8, 6, 4)).astype(np.float32)
            layers = [keras.layers.LSTM(10), keras.layers.Dense(3)]
        else:
            x = tf1.placeholder(tf.int32, [8, 7], name="x")
            x_val = token_ids(8, 7, 30, r)
            layers = [keras.layers.Embedding(30, 6, mask_zero=True),
                      keras.layers.GRU(8), keras.layers.Dense(3)]
        h = x
        for layer in layers:
            h = layer(h)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                           logits=h))
        # Keras 3 variables wrap a tf.Variable, which the v1 optimizers
        # take.
        tvars = [getattr(v, "_value", v) for layer in layers
                 for v in layer.trainable_weights]
        if kind == "lstm_adam":
            train = tf1.train.AdamOptimizer(0.05).minimize(loss,
                                                           var_list=tvars)
        else:
            train = tf.group(
                tf1.train.RMSPropOptimizer(0.02, momentum=0.5).minimize(
                    loss, var_list=tvars[0::2]),
                tf1.train.AdagradOptimizer(0.3).minimize(
                    loss, var_list=tvars[1::2]))
        init = tf1.global_variables_initializer()
        wr = rng(21)
        assigns, values = [], {}
        for v in tvars:
            p = tf1.placeholder(v.dtype.base_dtype, v.shape)
            assigns.append(v.assign(p))
            values[p] = (wr.normal(size=v.shape.as_list()) * 0.3).astype(
                np.float32)
    with tf1.Session(target, graph=graph) as sess:
        sess.run(init)
        sess.run(assigns, values)
        losses, times = [], []
        for _ in range(steps):
            t0 = time.perf_counter()
            l, _ = sess.run([loss, train], {x: x_val, y: y_val})
            times.append((time.perf_counter() - t0) * 1e3)
            losses.append(float(l))
    return losses, statistics.median(times[2:])


def split(graph_def):
    """A copy of graph_def with each node on the worker or the ps task, by
    a hash of its name."""
    out = tf1.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        job = ("worker", "ps")[zlib.crc32(node.name.encode()) % 2]
        node.device = f"/job:{job}/replica:0/task:0/device:CPU:0"
    return out


def tf_local_cluster():
    """TensorFlow's servers for a worker and a ps task in this process."""
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
    spec = tf.train.ClusterSpec({"worker": [f"127.0.0.1:{ports[0]}"],
                                 "ps": [f"127.0.0.1:{ports[1]}"]})
    return [tf.distribute.Server(spec, job_name=job, task_index=0)
            for job in ("worker", "ps")]


# --------------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    parser.add_argument("--all", action="store_true",
                        help="every model (default: the quick set)")
    parser.add_argument("--filter", default="", help="models whose name "
                        "contains TEXT")
    parser.add_argument("--iters", type=int, default=10,
                        help="timed steps per model and runtime")
    parser.add_argument("--keep", help="write the frozen graphs here")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--no-optimize", action="store_true",
                        help="dfx run/bench with the graph optimizer off")
    parser.add_argument("--functional", action="store_true",
                        help="freeze with lower_control_flow=False: "
                        "functional While/If that dfx inlines")
    args = parser.parse_args()
    dfx = os.path.abspath(args.dfx)
    FUNCTIONAL[0] = args.functional

    models = [m for m in MODELS if (args.all or m[2] or args.filter) and
              args.filter in m[0]]
    failures = []
    rows = []
    cluster_dir = tempfile.mkdtemp(prefix="dfx-zooseq-")
    target = None
    try:
        if not args.no_cluster:
            up = subprocess.run([dfx, "cluster", "up", "--workers", "1",
                                 "--ps", "1", "--dir",
                                 os.path.join(cluster_dir, "cluster")],
                                capture_output=True, text=True, timeout=120)
            if up.returncode != 0:
                print("dfx cluster up failed:", up.stderr, file=sys.stderr)
                return 1
            target = up.stdout.strip().splitlines()[-1]
        for name, build, _, on_cluster in models:
            work = os.path.join(cluster_dir, name)
            os.makedirs(work)
            frozen = build()
            path = os.path.join(args.keep or work, name + ".pb")
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
            with open(path, "wb") as f:
                f.write(frozen.graph_def.SerializeToString())
            ops = sorted({n.op for n in frozen.graph_def.node} |
                         {n.op for fn in frozen.graph_def.library.function
                          for n in fn.node_def})
            nodes = len(frozen.graph_def.node) + sum(
                len(fn.node_def) for fn in frozen.graph_def.library.function)
            want, tf_ms = tf_session_run(frozen.graph_def, frozen.feeds,
                                         frozen.fetches, iters=args.iters)
            want = fix_strings(want)
            missing = missing_ops(dfx, path)
            outs, dfx_ms, err = run_dfx(dfx, path, frozen, work, args.iters,
                                        ["--no-optimize"] if args.no_optimize
                                        else [])
            diff = None
            if outs is not None:
                diff, err = compare(fix_strings(outs), want, frozen.rtol,
                                    frozen.atol)
                err = [err] if err else []
            cluster = ""
            if target and on_cluster and not err:
                # As the model is, on the worker; then with its nodes spread
                # over the worker and the ps task (loop frames, TensorLists
                # and table handles cut between two processes).
                results = []
                for label, graph_def in (("ok", frozen.graph_def),
                                         ("split ok", split(frozen.graph_def))):
                    try:
                        got, _ = tf_session_run(graph_def, frozen.feeds,
                                                frozen.fetches, target=target)
                        _, cerr = compare(fix_strings(got), want,
                                          frozen.rtol, frozen.atol)
                    except tf.errors.OpError as e:
                        cerr = (f"{type(e).__name__}: "
                                f"{e.message.splitlines()[0]}")
                    results.append(label if not cerr else "FAIL")
                    if cerr:
                        err.append(f"cluster ({label}): {cerr}")
                cluster = ", ".join(results)
            rows.append((name, len(ops), nodes, diff, tf_ms, dfx_ms,
                         cluster, missing, err))
            if err:
                failures.append((name, err))
        kinds = [k for k in ("lstm_adam", "embedding_gru_sparse")
                 if not args.filter or args.filter in "train_" + k]
        # TensorFlow's own servers, one ps and one worker in this process,
        # for the ms/step beside dfx's cluster.
        servers = tf_local_cluster() if target and kinds else []
        for kind in kinds if target else []:
            name = "train_" + kind
            want, _ = training(kind, "")
            tf_cluster, tf_ms = training(kind, servers[0].target)
            got, dfx_ms = training(kind, target)
            err = []
            want_cluster = max(abs(a - b) for a, b in zip(tf_cluster, want))
            if want_cluster > 1e-4:
                err.append(f"TensorFlow's cluster differs by {want_cluster}")
            diff = max(abs(a - b) for a, b in zip(got, want))
            print(f"{name} losses: TF ", ["%.6f" % v for v in want])
            print(f"{name} losses: dfx", ["%.6f" % v for v in got])
            if diff > 1e-4:
                err.append(f"loss diff {diff}")
            if not want[-1] < want[0]:
                err.append("the loss does not fall")
            if err:
                failures.append((name, err))
            rows.append((name + " (ps+worker)", 0, 0, diff, tf_ms, dfx_ms,
                         "FAIL" if err else "ok", [], []))
    finally:
        if target:
            subprocess.run([dfx, "cluster", "down", "--dir",
                            os.path.join(cluster_dir, "cluster")],
                           capture_output=True, timeout=60)
        shutil.rmtree(cluster_dir, ignore_errors=True)

    def fmt(v, spec):
        return "-" if v is None else format(v, spec)

    print(f"{'model':38} {'ops':>4} {'nodes':>6} {'max diff':>9} "
          f"{'TF ms':>8} {'dfx ms':>8} cluster")
    for name, nops, nodes, diff, tf_ms, dfx_ms, cluster, missing, err in rows:
        print(f"{name:38} {fmt(nops or None, '4d'):>4} "
              f"{fmt(nodes or None, '6d'):>6} {fmt(diff, '9.2e'):>9} "
              f"{fmt(tf_ms, '8.3f'):>8} {fmt(dfx_ms, '8.3f'):>8} {cluster}")
        if missing:
            print(f"  dfx lacks: {', '.join(missing)}")
    for name, err in failures:
        print(f"FAIL {name}: {'; '.join(err)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
