"""Golden cases of the tf.data service client ops (RegisterDataset,
RegisterDatasetV2, DataServiceDataset V1 to V4, DistributedSave).

These ops talk to a tf.data service dispatcher and its workers, which a
golden case (one graph, one TensorFlow session) does not start: the cases
here are the checks both kernels make before sending anything (empty
address or protocol, a processing mode that is neither a mode name nor a
ProcessingModeDef, an unknown target_workers, a protocol without
credentials; DistributedSave's infinite dataset, empty directory or
address, unparsable metadata, a file system scheme TensorFlow lacks),
each TensorFlow's error code. Reading through TensorFlow's
own servers is tests/interop/tf_data_service_client.py.

Left out: a dispatcher that is not there. TensorFlow's kernels retry
Unavailable for 60 minutes and do not stop when the step is cancelled;
dfx's stop (tests/kernels/dataservice_test.cc,
tests/interop/tf_data_service_client.py).

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/dataservice_test.cc
compares with dfx's registry.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

FAMILY = "dataservice"
RAW = tf.raw_ops

OP_NAMES = ["RegisterDataset", "RegisterDatasetV2", "DataServiceDataset",
            "DataServiceDatasetV2", "DataServiceDatasetV3",
            "DataServiceDatasetV4", "DistributedSave"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def register(version, address, protocol):
    def build():
        ds = tf.data.Dataset.range(3)
        op = RAW.RegisterDatasetV2 if version == 2 else RAW.RegisterDataset
        return op(dataset=ds._variant_tensor, address=address,
                  protocol=protocol, external_state_policy=0), None
    return build


def read(version, mode=b"parallel_epochs", address="localhost:1",
         protocol="grpc", target_workers="AUTO"):
    """A DataServiceDataset of `version` read through an iterator; every
    case fails before the op sends a request."""
    def build():
        kw = dict(
            dataset_id="1000" if version == 4 else 1000,
            processing_mode=mode, address=address, protocol=protocol,
            job_name="", max_outstanding_requests=-1,
            iteration_counter=RAW.DummyIterationCounter(),
            output_types=[tf.int64], output_shapes=[[]],
            target_workers=target_workers)
        if version >= 2:
            kw.update(consumer_index=-1, num_consumers=-1)
        if version >= 3:
            @function.Defun(tf.variant)
            def uncompress(x):
                return RAW.UncompressElement(
                    compressed=x, output_types=[tf.int64],
                    output_shapes=[[]])

            uncompress.add_to_graph(tf.compat.v1.get_default_graph())
            kw.update(uncompress=True, uncompress_fn=uncompress)
        op = {1: RAW.DataServiceDataset, 2: RAW.DataServiceDatasetV2,
              3: RAW.DataServiceDatasetV3, 4: RAW.DataServiceDatasetV4}
        handle = op[version](**kw)
        it = RAW.AnonymousIteratorV3(output_types=[tf.int64],
                                     output_shapes=[[]])
        make = RAW.MakeIterator(dataset=handle, iterator=it)
        with tf.control_dependencies([make]):
            x = RAW.IteratorGetNext(iterator=it, output_types=[tf.int64],
                                    output_shapes=[[]])
        return x[0], None
    return build


def save(directory="snap", address="localhost:1", infinite=False,
         metadata=b""):
    """DistributedSave, a constant fetched after it; every case fails
    before the op sends a request (nothing is written: the directory is
    never made)."""
    def build():
        ds = tf.data.Dataset.range(3)
        if infinite:
            ds = ds.repeat()
        op = RAW.DistributedSave(dataset=ds._variant_tensor,
                                 directory=directory, address=address,
                                 metadata=metadata)
        with tf.control_dependencies([op]):
            return tf.constant(0), None
    return build


def main():
    for v in (1, 2):
        case(f"register_v{v}_empty_address", register(v, "", "grpc"))
        case(f"register_v{v}_empty_protocol", register(v, "localhost:1", ""))
    for v in (1, 2, 3, 4):
        case(f"read_v{v}_bad_processing_mode", read(v, mode=b"nonsense"))
        case(f"read_v{v}_empty_address", read(v, address=""))
        case(f"read_v{v}_empty_protocol", read(v, protocol=""))
    case("read_v4_unknown_target_workers",
         read(4, target_workers="SOMEWHERE"))
    case("read_v4_protocol_without_credentials", read(4, protocol="bogus"))
    case("read_v2_processing_mode_name_typo",
         read(2, mode=b"parallel_epoch"))
    case("save_infinite_dataset", save(infinite=True))
    case("save_empty_directory", save(directory=""))
    case("save_empty_address", save(address=""))
    case("save_bad_metadata", save(metadata=b"zz"))
    case("save_scheme_not_implemented", save(directory="nosuchfs://x/y"))
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
