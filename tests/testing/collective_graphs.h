// GraphDefs with one collective op per member device, as TensorFlow's
// client writes them (tf.raw_ops.CollectiveReduceV2 and friends): each
// member's input is a Placeholder `x<i>` fed by the test (BcastRecv has
// none), its group_size/group_key/instance_key are Consts on its device,
// and its result is node `c<i>`.
#ifndef DFX_TESTS_TESTING_COLLECTIVE_GRAPHS_H_
#define DFX_TESTS_TESTING_COLLECTIVE_GRAPHS_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "proto/graph.pb.h"

namespace dfx::testing {

inline std::string IntConst(const std::string& name, const std::string& device,
                            int value) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' device: '", device,
      "' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' "
      "value { tensor { dtype: DT_INT32 tensor_shape {} int_val: ",
      value, " } } } }\n");
}

// `op`: "CollectiveReduceV2" or "CollectiveReduceScatterV2" (attrs
// merge_op/final_op from `merge` and `final_op`), "CollectiveGatherV2",
// "CollectiveAllToAllV2", or "Bcast" (member 0 sends, the others
// receive a tensor of `bcast_shape`). `dtype`: e.g. "DT_FLOAT".
inline GraphDef CollectiveGraph(const std::vector<std::string>& devices,
                                const std::string& op, int group_key,
                                int instance_key,
                                const std::string& merge = "Add",
                                const std::string& final_op = "Id",
                                const std::string& dtype = "DT_FLOAT",
                                const std::vector<int>& bcast_shape = {}) {
  std::string text;
  const int n = static_cast<int>(devices.size());
  for (int i = 0; i < n; ++i) {
    const std::string& d = devices[i];
    const std::string s = absl::StrCat(i);
    text += IntConst("gs" + s, d, n);
    text += IntConst("gk" + s, d, group_key);
    text += IntConst("ik" + s, d, instance_key);
    const bool recv = op == "Bcast" && i != 0;
    if (!recv) {
      text += absl::StrCat("node { name: 'x", s, "' op: 'Placeholder' device: '",
                           d, "' attr { key: 'dtype' value { type: ", dtype,
                           " } } }\n");
    }
    std::string real_op = op;
    std::string inputs = absl::StrCat("input: 'x", s, "' input: 'gs", s,
                                      "' input: 'gk", s, "' input: 'ik", s,
                                      "'");
    std::string attrs = absl::StrCat("attr { key: 'T' value { type: ", dtype,
                                     " } }");
    if (op == "CollectiveReduceV2" || op == "CollectiveReduceScatterV2") {
      attrs += absl::StrCat(" attr { key: 'merge_op' value { s: '", merge,
                            "' } } attr { key: 'final_op' value { s: '",
                            final_op, "' } }");
    } else if (op == "Bcast" && i == 0) {
      real_op = "CollectiveBcastSendV2";
    } else if (recv) {
      real_op = "CollectiveBcastRecvV2";
      std::string shape;
      for (int v : bcast_shape) shape += absl::StrCat(" int_val: ", v);
      text += absl::StrCat(
          "node { name: 'shape", s, "' op: 'Const' device: '", d,
          "' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
          "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { "
          "size: ",
          bcast_shape.size(), " } }", shape, " } } } }\n");
      inputs = absl::StrCat("input: 'gs", s, "' input: 'gk", s, "' input: 'ik",
                            s, "' input: 'shape", s, "'");
    }
    text += absl::StrCat("node { name: 'c", s, "' op: '", real_op,
                         "' device: '", d, "' ", inputs, " ", attrs, " }\n");
  }
  GraphDef def;
  google::protobuf::TextFormat::ParseFromString(text, &def);
  return def;
}

// The v1 ops (keys as attrs), one per member as CollectiveGraph makes
// them: "CollectiveReduce" (merge_op/final_op from `merge` and `final_op`,
// subdiv_offsets [0]), "CollectiveGather", or "Bcast" (member 0 a
// CollectiveBcastSend, the others CollectiveBcastRecv; `shape` is the
// broadcasts' shape attr). Member i's input is Placeholder `x<i>`, its
// result node `c<i>`.
inline GraphDef CollectiveV1Graph(const std::vector<std::string>& devices,
                                  const std::string& op, int group_key,
                                  int instance_key,
                                  const std::string& merge = "Add",
                                  const std::string& final_op = "Id",
                                  const std::string& dtype = "DT_FLOAT",
                                  const std::vector<int>& shape = {}) {
  std::string text;
  const int n = static_cast<int>(devices.size());
  std::string shape_attr = "attr { key: 'shape' value { shape {";
  for (int d : shape) shape_attr += absl::StrCat(" dim { size: ", d, " }");
  shape_attr += " } } }";
  for (int i = 0; i < n; ++i) {
    const std::string& d = devices[i];
    const std::string s = absl::StrCat(i);
    const bool recv = op == "Bcast" && i != 0;
    std::string real_op = op;
    std::string attrs = absl::StrCat(
        "attr { key: 'T' value { type: ", dtype,
        " } } attr { key: 'group_size' value { i: ", n,
        " } } attr { key: 'group_key' value { i: ", group_key,
        " } } attr { key: 'instance_key' value { i: ", instance_key, " } }");
    if (op == "CollectiveReduce") {
      attrs += absl::StrCat(" attr { key: 'merge_op' value { s: '", merge,
                            "' } } attr { key: 'final_op' value { s: '",
                            final_op,
                            "' } } attr { key: 'subdiv_offsets' value { list "
                            "{ i: 0 } } }");
    } else {
      attrs += " " + shape_attr;
      if (op == "Bcast") {
        real_op = recv ? "CollectiveBcastRecv" : "CollectiveBcastSend";
      }
    }
    std::string input;
    if (!recv) {
      text += absl::StrCat("node { name: 'x", s,
                           "' op: 'Placeholder' device: '", d,
                           "' attr { key: 'dtype' value { type: ", dtype,
                           " } } }\n");
      input = absl::StrCat("input: 'x", s, "' ");
    }
    text += absl::StrCat("node { name: 'c", s, "' op: '", real_op,
                         "' device: '", d, "' ", input, attrs, " }\n");
  }
  GraphDef def;
  google::protobuf::TextFormat::ParseFromString(text, &def);
  return def;
}

// The communicator ops: per member i, x<i> (Placeholder), comm<i>
// (CollectiveInitializeCommunicator of `group_key`, rank i, the group size)
// and c<i> (`op`: CollectiveReduceV3 with `reduction`, or
// CollectiveAllToAllV3) with an empty group_assignment.
inline GraphDef CommunicatorGraph(const std::vector<std::string>& devices,
                                  const std::string& op, int group_key,
                                  const std::string& reduction = "Add") {
  std::string text;
  const int n = static_cast<int>(devices.size());
  for (int i = 0; i < n; ++i) {
    const std::string& d = devices[i];
    const std::string s = absl::StrCat(i);
    text += IntConst("gk" + s, d, group_key);
    text += IntConst("rank" + s, d, i);
    text += IntConst("gs" + s, d, n);
    text += absl::StrCat(
        "node { name: 'none", s, "' op: 'Const' device: '", d,
        "' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
        "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: "
        "0 } } } } } }\n");
    text += absl::StrCat(
        "node { name: 'x", s, "' op: 'Placeholder' device: '", d,
        "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n");
    text += absl::StrCat(
        "node { name: 'comm", s,
        "' op: 'CollectiveInitializeCommunicator' device: '", d,
        "' input: 'gk", s, "' input: 'rank", s, "' input: 'gs", s, "' }\n");
    std::string attrs = "attr { key: 'T' value { type: DT_FLOAT } }";
    if (op == "CollectiveReduceV3") {
      attrs += absl::StrCat(" attr { key: 'reduction' value { s: '", reduction,
                            "' } }");
    }
    text += absl::StrCat("node { name: 'c", s, "' op: '", op, "' device: '", d,
                         "' input: 'x", s, "' input: 'comm", s,
                         "' input: 'none", s, "' ", attrs, " }\n");
  }
  GraphDef def;
  google::protobuf::TextFormat::ParseFromString(text, &def);
  return def;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_COLLECTIVE_GRAPHS_H_
